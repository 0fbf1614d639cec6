import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Redis } from 'ioredis';
import { parseBrokerConfig } from '../../../src/broker/config/index.ts';
import {
  MemoryEphemeralStore,
  RedisEphemeralStore,
  StateUnavailableError,
  connectRedis,
  type EphemeralStore,
} from '../../../src/broker/state/index.ts';
import { startRedisServer, type RedisServer } from '../../support/redis-server.ts';
import { env, fileConfig } from '../config/fixtures.ts';

/**
 * The `EphemeralStore` contract (src/broker/state/ephemeral-store.ts), run
 * alike against the in-memory store and the Redis store on a real
 * redis-server. Expiry is checked with real, short TTLs: a shared store has no
 * injectable clock.
 */
function contract(name: string, open: () => EphemeralStore) {
  describe(`EphemeralStore contract: ${name}`, () => {
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    let n = 0;
    const key = () => `contract:${process.pid}:${Date.now()}:${n++}`;

    it('returns what was set, as a copy, and null for an absent key', async () => {
      const store = open();
      const k = key();
      await store.set(k, { list: [1, 'two', null, true], nested: { x: 1.5 } }, 10_000);
      const value = (await store.get(k)) as { list: unknown[] };
      assert.deepEqual(value, { list: [1, 'two', null, true], nested: { x: 1.5 } });
      value.list.push('changed');
      assert.deepEqual(await store.get(k), { list: [1, 'two', null, true], nested: { x: 1.5 } });
      assert.equal(await store.get(key()), null);
    });

    it('replaces an entry on set, and delete removes it', async () => {
      const store = open();
      const k = key();
      await store.set(k, 1, 10_000);
      await store.set(k, 'second', 10_000);
      assert.equal(await store.get(k), 'second');
      await store.delete(k);
      assert.equal(await store.get(k), null);
      await store.delete(k);
    });

    it('take hands a value out exactly once, however many callers race', async () => {
      const store = open();
      const k = key();
      await store.set(k, { code: 'x' }, 10_000);
      const results = await Promise.all(Array.from({ length: 20 }, () => store.take(k)));
      assert.equal(results.filter((r) => r !== null).length, 1);
      assert.equal(await store.get(k), null);
    });

    it('update applies every concurrent change exactly once', async () => {
      const store = open();
      const k = key();
      await store.set(k, { count: 0 }, 10_000);
      await Promise.all(
        Array.from({ length: 25 }, () =>
          store.update(k, (current) => ({ count: (current as { count: number }).count + 1 })),
        ),
      );
      assert.deepEqual(await store.get(k), { count: 25 });
    });

    it('update returns the value after the call; undefined leaves it; an absent key gives null', async () => {
      const store = open();
      const k = key();
      await store.set(k, 1, 10_000);
      assert.equal(await store.update(k, (v) => (v as number) + 1), 2);
      assert.equal(await store.update(k, () => undefined), 2);
      assert.equal(await store.update(key(), () => 5), null);
    });

    it('entries expire on their own, and an update keeps the expiry', async () => {
      const store = open();
      const [a, b] = [key(), key()];
      await store.set(a, 'short', 150);
      await store.set(b, 0, 400);
      await sleep(50);
      assert.equal(await store.update(b, (v) => (v as number) + 1), 1);
      await sleep(450);
      assert.equal(await store.get(a), null);
      assert.equal(await store.take(a), null);
      assert.equal(await store.get(b), null, 'the update must not have renewed the TTL');
    });

    it('refuses a TTL that is not positive (every entry expires)', async () => {
      const store = open();
      await assert.rejects(store.set(key(), 1, 0), RangeError);
    });
  });
}

/** `admit`: a bound per kind of entry, with the wait until a place frees; expired entries free theirs. */
function admission(name: string, open: (maxEntriesPerKind: number) => EphemeralStore) {
  describe(`EphemeralStore admission: ${name}`, () => {
    const kind = () => `kind-${process.pid}-${Date.now()}-${Math.random()}`;

    it('admits up to the bound of a kind, then refuses with the time until the oldest expires', async () => {
      const store = open(2);
      const [k, other] = [kind(), kind()];
      assert.deepEqual(await store.admit(k, `${k}:a`, 'a', 60_000), { admitted: true });
      assert.deepEqual(await store.admit(k, `${k}:b`, 'b', 60_000), { admitted: true });
      const refused = await store.admit(k, `${k}:c`, 'c', 60_000);
      assert.equal(refused.admitted, false);
      assert.ok(!refused.admitted && refused.retryAfterMs > 0 && refused.retryAfterMs <= 60_000);
      assert.equal(await store.get(`${k}:c`), null, 'a refused entry is not written');
      assert.equal(await store.get(`${k}:a`), 'a');
      assert.deepEqual(await store.admit(other, `${other}:a`, 'a', 60_000), { admitted: true }, 'kinds are apart');
    });

    it('an expired entry frees its place', async () => {
      const store = open(1);
      const k = kind();
      assert.deepEqual(await store.admit(k, `${k}:a`, 'a', 100), { admitted: true });
      assert.equal((await store.admit(k, `${k}:b`, 'b', 100)).admitted, false);
      await new Promise((resolve) => setTimeout(resolve, 250));
      assert.deepEqual(await store.admit(k, `${k}:b`, 'b', 100), { admitted: true });
    });
  });
}

contract('memory', () => new MemoryEphemeralStore());
admission('memory', (maxEntriesPerKind) => new MemoryEphemeralStore({ maxEntriesPerKind }));

describe('Redis store on a real redis-server', () => {
  let server: RedisServer;
  let client: Redis;
  let store: RedisEphemeralStore;

  before(async () => {
    server = await startRedisServer({ password: 'contract-password' });
    const config = parseBrokerConfig(
      `${fileConfig}\nstate:\n  ephemeral: redis\nredis:\n  url: ${server.url}\n  keyPrefix: "t:"\n  commandTimeout: 500ms\n  connectTimeout: 500ms\n`,
      { ...env, DEMARKUS_BROKER_REDIS_PASSWORD: 'contract-password' },
    );
    client = await connectRedis(config.redis!, () => undefined);
    store = new RedisEphemeralStore({ client, keyPrefix: config.redis!.keyPrefix });
  });
  after(async () => {
    client?.disconnect();
    await server?.close();
  });

  contract('redis', () => store);
  admission('redis', (maxEntriesPerKind) => new RedisEphemeralStore({ client, keyPrefix: 't:', maxEntriesPerKind }));

  it('gives every key a TTL and keeps it under the configured prefix', async () => {
    await store.set('device:abc', { status: 'pending' }, 60_000);
    const ttl = await client.pttl('t:eph:device:abc');
    assert.ok(ttl > 0 && ttl <= 60_000, `expected a TTL, got ${ttl}`);
    assert.deepEqual(await client.keys('device:*'), []);
  });

  it('refuses an entry that is not JSON rather than hand it to a caller', async () => {
    await client.set('t:eph:broken', '{not json', 'PX', 10_000);
    await assert.rejects(store.get('broken'), StateUnavailableError);
  });

  it('fails fast with StateUnavailableError while Redis is down, and works again once it is back', async () => {
    await server.stop();
    const started = Date.now();
    await assert.rejects(store.get('anything'), StateUnavailableError);
    await assert.rejects(store.set('anything', 1, 1000), StateUnavailableError);
    assert.ok(Date.now() - started < 5_000, 'a down Redis must not make callers hang');
    await server.start();
    for (let i = 0; ; i++) {
      try {
        await store.set('back', 'again', 10_000);
        break;
      } catch (error) {
        if (i > 100) throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    assert.equal(await store.get('back'), 'again');
  });
});
