import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import type { RateLimiter } from '../../../src/broker/http/rate-limit/rate-limiter.ts';
import type { RateLimitSettings } from '../../../src/broker/http/rate-limit/settings.ts';
import { SharedTokenBuckets } from '../../../src/broker/http/rate-limit/shared-token-buckets.ts';
import { TokenBuckets } from '../../../src/concurrency/token-buckets.ts';
import { createBrokerMetrics } from '../../../src/broker/http/metrics.ts';
import { startRedisServer, type RedisServer } from '../../support/redis-server.ts';

/**
 * The `RateLimiter` port (src/broker/http/rate-limit/rate-limiter.ts), run
 * alike against the per-process buckets and the shared buckets on a real
 * redis-server; then what only the shared ones promise: one budget across
 * replicas (two connections stand for two broker processes) and per-pod
 * buckets, announced, while Redis is down.
 */
let redis: RedisServer;
const clients: Redis[] = [];
let n = 0;

function connect(): Redis {
  const client = new Redis({
    host: '127.0.0.1',
    port: redis.port,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: 1000,
    retryStrategy: () => 50,
  });
  client.on('error', () => undefined);
  clients.push(client);
  return client;
}

async function ready(client: Redis): Promise<void> {
  for (let i = 0; client.status !== 'ready' && i < 200; i++) await new Promise((r) => setTimeout(r, 25));
  assert.equal(client.status, 'ready');
}

before(async () => {
  redis = await startRedisServer();
});
after(async () => {
  for (const client of clients) client.disconnect();
  await redis?.close();
});

function contract(name: string, open: (settings: RateLimitSettings) => Promise<RateLimiter>) {
  describe(`RateLimiter contract: ${name}`, () => {
    it('allows the burst, then refuses with the seconds until the next token', async () => {
      const limiter = await open({ perMinute: 6, burst: 2 });
      assert.deepEqual(await limiter.take('a'), { ok: true });
      assert.deepEqual(await limiter.take('a'), { ok: true });
      assert.deepEqual(await limiter.take('a'), { ok: false, retryAfterSeconds: 10 });
    });

    it('spends nothing on a refused request', async () => {
      const limiter = await open({ perMinute: 1, burst: 3 });
      assert.equal((await limiter.take('a', 2)).ok, true);
      for (let i = 0; i < 5; i++) assert.equal((await limiter.take('a', 2)).ok, false);
      assert.equal((await limiter.take('a', 1)).ok, true, 'the refusals left the last token in place');
      assert.equal((await limiter.take('a', 1)).ok, false);
    });

    it('says a cost above the burst can never be paid', async () => {
      const limiter = await open({ perMinute: 60, burst: 4 });
      const verdict = await limiter.take('a', 5);
      assert.equal(verdict.ok, false);
      assert.equal(!verdict.ok && verdict.retryAfterSeconds, Number.POSITIVE_INFINITY);
      assert.equal((await limiter.take('a', 4)).ok, true, 'the unpayable batch spent nothing');
    });

    it('keeps keys apart and refuses bad costs', async () => {
      const limiter = await open({ perMinute: 1, burst: 1 });
      assert.equal((await limiter.take('a')).ok, true);
      assert.equal((await limiter.take('a')).ok, false);
      assert.equal((await limiter.take('b')).ok, true);
      await assert.rejects(async () => limiter.take('c', 0), RangeError);
      await assert.rejects(async () => limiter.take('c', 1.5), RangeError);
    });

    it('hands out exactly the burst to concurrent callers', async () => {
      const limiter = await open({ perMinute: 1, burst: 5 });
      const verdicts = await Promise.all(Array.from({ length: 30 }, () => limiter.take('racy')));
      assert.equal(verdicts.filter((v) => v.ok).length, 5);
    });
  });
}

contract('per-process TokenBuckets', async (settings) => new TokenBuckets(settings));
contract('SharedTokenBuckets on redis-server', async (settings) => {
  const client = connect();
  await ready(client);
  return new SharedTokenBuckets({ ...settings, client, keyPrefix: `contract:${n++}:` });
});

describe('SharedTokenBuckets across replicas', () => {
  it('spends one budget from two processes, not one each', async () => {
    const keyPrefix = `replicas:${n++}:`;
    const [a, b] = [connect(), connect()];
    await Promise.all([ready(a), ready(b)]);
    const onA = new SharedTokenBuckets({ perMinute: 1, burst: 6, client: a, keyPrefix });
    const onB = new SharedTokenBuckets({ perMinute: 1, burst: 6, client: b, keyPrefix });
    const verdicts = await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 2 ? onA : onB).take('subject-1')));
    assert.equal(verdicts.filter((v) => v.ok).length, 6);
  });

  it('gives every bucket key a TTL and keeps the caller key out of its name', async () => {
    const client = connect();
    await ready(client);
    const keyPrefix = `ttl:${n++}:`;
    const limiter = new SharedTokenBuckets({ perMinute: 60, burst: 10, client, keyPrefix });
    await limiter.take('alice@example.com', 3);
    const keys = await client.keys(`${keyPrefix}*`);
    assert.equal(keys.length, 1);
    assert.doesNotMatch(keys[0]!, /alice/);
    const ttl = await client.pttl(keys[0]!);
    // 3 tokens at one per second refill in 3 s; the key lives that long plus a second.
    assert.ok(ttl > 0 && ttl <= 4000, `ttl ${ttl}`);
  });

  it('falls back to per-pod buckets while Redis is down, says so in a metric, and comes back', async () => {
    const client = connect();
    await ready(client);
    const metrics = createBrokerMetrics({ collectDefaults: false });
    const changes: boolean[] = [];
    const keyPrefix = `fallback:${n++}:`;
    const limiter = new SharedTokenBuckets({
      perMinute: 1,
      burst: 2,
      client,
      keyPrefix,
      onFallback: (active) => {
        changes.push(active);
        metrics.setRateLimitFallback('subject', active);
      },
    });
    const gauge = async () =>
      (await metrics.registry.getSingleMetricAsString('broker_rate_limit_local_fallback')).match(
        /limiter="subject"} (\d)/,
      )?.[1];
    assert.equal((await limiter.take('k')).ok, true);
    assert.equal((await limiter.take('k')).ok, true);
    assert.equal((await limiter.take('k')).ok, false, 'the shared bucket is empty');
    await redis.stop();
    try {
      // The pod's own bucket is fresh: it serves its own burst, then limits.
      assert.equal((await limiter.take('k')).ok, true);
      assert.equal((await limiter.take('k')).ok, true);
      assert.equal((await limiter.take('k')).ok, false, 'per-pod buckets still limit');
      assert.equal(limiter.fallingBack, true);
      assert.equal(await gauge(), '1');
    } finally {
      await redis.start();
    }
    await ready(client);
    // The restarted server kept nothing (no persistence): the check lands in a new shared bucket.
    assert.equal((await limiter.take('k')).ok, true);
    assert.equal((await client.keys(`${keyPrefix}*`)).length, 1, 'the check was answered by Redis');
    assert.equal(limiter.fallingBack, false);
    assert.equal(await gauge(), '0');
    assert.deepEqual(changes, [true, false]);
  });
});
