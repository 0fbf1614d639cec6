import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { maxBodyBytes } from '../../src/protocol/limits.ts';

/**
 * Linear-time checks without a timing threshold (docs/decisions.md, "Regular
 * expressions over document bodies are written to run in linear time"): a
 * scan of a crafted 1 MiB input runs in a child process that is killed only if
 * it has not finished after 60 s. A linear scan of 1 MiB ends in well under a
 * second however loaded the machine is; a quadratic one needs ten minutes and
 * more, so it cannot finish within the bound.
 */
const run = promisify(execFile);
const killAfterMs = 60_000;

/**
 * Runs `body` (an async function body) in a child and returns what it returns,
 * through JSON. Each entry of `modules` is imported in the child under its key;
 * `fill(unit, room)` is `unit` repeated to fill a 1 MiB body (maxBodyBytes,
 * src/protocol/limits.ts) but `room` characters (default 1024). The crafted
 * input is built in the child: a megabyte does not fit on a command line.
 */
export async function runInChild(modules: Readonly<Record<string, URL>>, body: string): Promise<unknown> {
  const imports = Object.entries(modules)
    .map(([name, url]) => `const ${name} = await import(${JSON.stringify(url.href)});`)
    .join('\n');
  const source = `${imports}
const fill = (unit, room = 1024) => unit.repeat(Math.floor((${maxBodyBytes} - room) / unit.length));
const result = await (async () => { ${body} })();
process.stdout.write(JSON.stringify(result));`;
  try {
    const { stdout } = await run(process.execPath, ['--input-type=module', '--eval', source], {
      timeout: killAfterMs,
      killSignal: 'SIGKILL',
      maxBuffer: 16 * maxBodyBytes,
    });
    return JSON.parse(stdout);
  } catch (error) {
    assert.ok(
      !(error as { killed?: boolean }).killed,
      `the scan had not finished after ${killAfterMs / 1000} s: it is not linear in the input`,
    );
    throw error;
  }
}
