import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { logLevel } from '../../src/cli/json-logger.ts';
import { UsageError } from '../../src/cli/usage-error.ts';
import { runCli } from './cli-process.ts';

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
