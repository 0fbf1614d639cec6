import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, parseBrokerConfig } from '../../../src/broker/config/index.ts';
import { memoryEphemeralStoreCapacity } from '../../../src/broker/state/memory-ephemeral-store.ts';
import { redisOptions } from '../../../src/broker/state/index.ts';
import { env, fileConfig } from './fixtures.ts';

const parse = (lines: string, extraEnv: Record<string, string> = {}) =>
  parseBrokerConfig(`${fileConfig}${lines}`, { ...env, ...extraEnv });

const refused = (lines: string, message: RegExp, extraEnv: Record<string, string> = {}) =>
  assert.throws(
    () => parse(lines, extraEnv),
    (error: unknown) => error instanceof ConfigError && message.test(error.message),
  );

describe('state.ephemeral and redis.* config', () => {
  it('defaults to memory, with no Redis needed', () => {
    const config = parse('');
    assert.equal(config.state.ephemeral, 'memory');
    assert.equal(config.redis, undefined);
  });

  it('bounds pending sign-ins at 8,000 of each kind by default, under the memory store capacity of all three', () => {
    // docs/operations.md: 8,000 × (1.0 + 3.4 + 3.4) KB ≈ 62 MB at worst, beside 100 MB of sessions, in maxmemory 200mb.
    assert.equal(parse('').state.maxPendingSignIns, 8_000);
    assert.equal(parse('state:\n  ephemeral: memory\n  maxPendingSignIns: 25000\n').state.maxPendingSignIns, 25_000);
    assert.ok(memoryEphemeralStoreCapacity > 3 * parse('').state.maxPendingSignIns);
  });

  it('takes the URL, user and password from the environment, with defaults for the rest', () => {
    const config = parse('', {
      DEMARKUS_BROKER_STATE_EPHEMERAL: 'redis',
      DEMARKUS_BROKER_REDIS_URL: 'rediss://redis.example.com:6380/2',
      DEMARKUS_BROKER_REDIS_USERNAME: 'broker',
      DEMARKUS_BROKER_REDIS_PASSWORD: 's3cret',
    });
    assert.equal(config.state.ephemeral, 'redis');
    assert.deepEqual(
      { ...config.redis, password: config.redis?.password === undefined ? 'absent' : 'set' },
      {
        url: 'rediss://redis.example.com:6380/2',
        username: 'broker',
        password: 'set',
        keyPrefix: 'demarkus:',
        connectTimeout: 5000,
        commandTimeout: 2000,
      },
    );
  });

  it('refuses redis without somewhere to connect, credentials in the URL, and two password sources', () => {
    refused('state:\n  ephemeral: redis\n', /redis\.url: is required when state\.ephemeral is "redis"/);
    refused('redis:\n  url: http://redis:6379\n', /redis\.url: must be a redis:\/\/host/);
    refused('redis:\n  url: redis://user:pw@redis:6379\n', /redis\.url: must not carry credentials/);
    for (const database of ['x', '-1', '01', '1.5'])
      refused(
        `redis:\n  url: redis://redis:6379/${database}\n`,
        /redis\.url: may only name a database number \(0 or more\)/,
      );
    refused(
      'redis:\n  url: redis://redis:6379\n  passwordFile: /run/secrets/redis\n',
      /redis\.passwordFile: conflicts with redis\.password/,
      { DEMARKUS_BROKER_REDIS_PASSWORD: 'x' },
    );
    refused('redis:\n  url: redis://redis:6379\n  keyPrefix: "has space"\n', /redis\.keyPrefix: must be 1-64/);
    refused(
      'redis:\n  sentinel:\n    masterName: mymaster\n    nodes: ["no-port"]\n',
      /redis\.sentinel\.nodes\[0\]: must be "host:port"/,
    );
  });

  it('builds client options: TLS for rediss, database from the path, password from its file, Sentinel nodes', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'demarkus-redis-config-'));
    try {
      await writeFile(join(dir, 'password'), 'from-file\n');
      await writeFile(join(dir, 'sentinel-password'), 'sentinel-secret\n');
      const direct = parse(
        `state:\n  ephemeral: redis\nredis:\n  url: rediss://cache.internal:6380/3\n  passwordFile: ${join(dir, 'password')}\n`,
      );
      const options = await redisOptions(direct.redis!);
      assert.equal(options.host, 'cache.internal');
      assert.equal(options.port, 6380);
      assert.equal(options.db, 3);
      assert.equal(options.password, 'from-file');
      assert.deepEqual(options.tls, { servername: 'cache.internal' });
      assert.equal(options.enableOfflineQueue, false, 'commands must fail fast while Redis is down');

      const viaSentinel = parse(
        `state:\n  ephemeral: redis\nredis:\n  sentinel:\n    masterName: mymaster\n    nodes: ["s1.redis:26379", "s2.redis:26379"]\n    passwordFile: ${join(dir, 'sentinel-password')}\n`,
      );
      const sentinel = await redisOptions(viaSentinel.redis!);
      assert.equal(sentinel.name, 'mymaster');
      assert.deepEqual(sentinel.sentinels, [
        { host: 's1.redis', port: 26379 },
        { host: 's2.redis', port: 26379 },
      ]);
      assert.equal(sentinel.sentinelPassword, 'sentinel-secret');
      assert.equal(sentinel.tls, undefined);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
