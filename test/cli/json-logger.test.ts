import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logLevel } from '../../src/cli/json-logger.ts';
import { UsageError } from '../../src/cli/usage-error.ts';
import { runCli } from './cli-process.ts';

const run = promisify(execFile);
const loggerModule = new URL('../../src/cli/json-logger.ts', import.meta.url).href;

/**
 * One line from each kind of logger a process has: a Fastify listener given `logOptions` (as
 * `startBroker` builds the broker's MCP and management listeners, src/broker/broker.ts) and
 * `jsonLogger` (worlds, the dev stack, the broker's own lines). Before, the listener's lines went to
 * stdout, where `dev` prints its addresses, while docs/operations.md said stderr.
 */
const script = `
import Fastify from 'fastify';
import { jsonLogger, logOptions } from ${JSON.stringify(loggerModule)};
const app = Fastify({ logger: logOptions('broker') });
app.log.warn({ route: '/mcp' }, 'from the listener');
jsonLogger('world').warn({}, 'from the world');
await app.close();
`;

describe('where JSON logs go', () => {
  it('every logger writes its JSON lines to stderr and nothing to stdout', async () => {
    const { stdout, stderr } = await run(process.execPath, ['--input-type=module', '-e', script], {
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
      env: { ...process.env, LOG_LEVEL: 'info' },
    });
    assert.equal(stdout, '');
    const lines = stderr
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.deepEqual(
      lines.map(({ level, component, msg }) => ({ level, component, msg })),
      [
        { level: 'warn', component: 'broker', msg: 'from the listener' },
        { level: 'warn', component: 'world', msg: 'from the world' },
      ],
    );
  });
});

describe('LOG_LEVEL', () => {
  it("unset or empty means the default (info, or the caller's)", () => {
    assert.equal(logLevel('info', {}), 'info');
    assert.equal(logLevel('info', { LOG_LEVEL: '' }), 'info');
    assert.equal(logLevel('warn', { LOG_LEVEL: '' }), 'warn');
  });

  it('takes a level name in any case', () => {
    assert.equal(logLevel('info', { LOG_LEVEL: 'debug' }), 'debug');
    assert.equal(logLevel('info', { LOG_LEVEL: 'DEBUG' }), 'debug');
    assert.equal(logLevel('info', { LOG_LEVEL: 'silent' }), 'silent');
  });

  it('refuses an unknown name, listing the ones it takes', () => {
    assert.throws(
      () => logLevel('info', { LOG_LEVEL: 'warning' }),
      (error: unknown) => {
        assert.ok(error instanceof UsageError);
        assert.equal(
          error.message,
          'LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "warning"',
        );
        return true;
      },
    );
  });

  it('as a process: world with LOG_LEVEL=warning exits 2 before it listens', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'demarkus-log-level-'));
    try {
      const run = await runCli(['world', '--root', join(dir, 'root'), '--listen', '127.0.0.1:0'], {
        env: { LOG_LEVEL: 'warning' },
      });
      assert.equal(run.code, 2, run.stderr);
      assert.match(
        run.stderr,
        /^demarkus-broker world: LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "warning"\n/,
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
