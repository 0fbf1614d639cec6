import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { maxTokenTtlMs, tokenLifetimeMs } from '../../src/cli/token-command.ts';
import { UsageError } from '../../src/cli/usage-error.ts';
import { runCli } from './cli-process.ts';
import { env as signingKeyEnv, fileConfig } from '../broker/config/fixtures.ts';

const hour = 3_600_000;
const server = { idTokenTTL: 15 * 60_000, refreshTokenTTL: 2160 * hour };

describe('token --ttl: the lifetime of a token nobody can revoke', () => {
  it('defaults to server.idTokenTTL', () => {
    assert.equal(tokenLifetimeMs(undefined, false, server), server.idTokenTTL);
  });

  it('refuses zero, negative and sub-second lifetimes as usage errors', () => {
    for (const ttl of ['0s', '0', '-5m', '500ms', '999ms']) {
      assert.throws(
        () => tokenLifetimeMs(ttl, false, server),
        (error: unknown) => {
          assert.ok(error instanceof UsageError, ttl);
          assert.equal(error.message, `--ttl must be at least 1s, got ${JSON.stringify(ttl)}`);
          return true;
        },
      );
    }
  });

  it('refuses text that is not a Go duration', () => {
    assert.throws(() => tokenLifetimeMs('10 years', false, server), UsageError);
  });

  it('accepts 1s up to 24h', () => {
    assert.equal(tokenLifetimeMs('1s', false, server), 1000);
    assert.equal(tokenLifetimeMs('24h', false, server), maxTokenTtlMs);
  });

  it('refuses more than 24h unless --allow-long-ttl is given, and says so', () => {
    assert.throws(() => tokenLifetimeMs('87600h', false, server), {
      message:
        '--ttl must be at most 24h, got "87600h"; pass --allow-long-ttl for up to server.refreshTokenTTL (2160h0m0s)',
    });
    assert.equal(tokenLifetimeMs('720h', true, server), 720 * hour);
  });

  it('never exceeds server.refreshTokenTTL, even with --allow-long-ttl', () => {
    assert.throws(() => tokenLifetimeMs('2161h', true, server), {
      message: '--ttl must be at most server.refreshTokenTTL (2160h0m0s), got "2161h"',
    });
  });

  it('refuses --allow-long-ttl without --ttl', () => {
    assert.throws(() => tokenLifetimeMs(undefined, true, server), { message: '--allow-long-ttl goes with --ttl' });
  });

  it('as a process: a 10-year --ttl exits 2 and prints no token; with --allow-long-ttl, 10 days is minted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'demarkus-token-ttl-'));
    try {
      const config = join(dir, 'config.yaml');
      await writeFile(config, fileConfig);
      const base = ['token', '--config', config, '--email', 'a@example.com'];
      const refused = await runCli([...base, '--ttl', '87600h'], { env: signingKeyEnv });
      assert.equal(refused.code, 2, refused.stderr);
      assert.equal(refused.stdout, '');
      const minted = await runCli([...base, '--ttl', '240h', '--allow-long-ttl'], { env: signingKeyEnv });
      assert.equal(minted.code, 0, minted.stderr);
      const claims = JSON.parse(Buffer.from(minted.stdout.trim().split('.')[1]!, 'base64url').toString());
      assert.equal(claims.exp - claims.iat, 240 * 3600);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
