import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

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
