import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Redis } from 'ioredis';
import { openRedisChannel, type RedisChannel } from '../../../src/broker/state/index.ts';
import { startRedisServer, type RedisServer } from '../../support/redis-server.ts';

/** The replicas' broadcast (src/broker/state/redis/redis-channel.ts) on a real redis-server. */
describe('Redis channel between replicas', () => {
  let redis: RedisServer;
  const clients: Redis[] = [];
  const channels: RedisChannel[] = [];

  const connect = async () => {
    const client = new Redis({
      host: '127.0.0.1',
      port: redis.port,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => 50,
      lazyConnect: true,
    });
    client.on('error', () => undefined);
    clients.push(client);
    await client.connect();
    return client;
  };
  const until = async (condition: () => boolean, what: string) => {
    for (let i = 0; !condition() && i < 200; i++) await new Promise((r) => setTimeout(r, 25));
    assert.ok(condition(), what);
  };

  before(async () => {
    redis = await startRedisServer();
  });
  after(async () => {
    for (const channel of channels) await channel.close();
    for (const client of clients) client.disconnect();
    await redis?.close();
  });

  it('delivers to the other replicas, not back to the sender, and again after Redis restarts', async () => {
    const heardByA: string[] = [];
    const heardByB: string[] = [];
    const a = openRedisChannel(
      await connect(),
      'test:graph',
      (m) => heardByA.push(m),
      () => undefined,
    );
    const b = openRedisChannel(
      await connect(),
      'test:graph',
      (m) => heardByB.push(m),
      () => undefined,
    );
    channels.push(a, b);
    // Subscribing happens once each subscriber connection is ready: publish until B hears.
    await until(() => {
      a.publish('root');
      return heardByB.length > 0;
    }, 'B hears A');
    assert.ok(!heardByB.some((m) => m !== 'root'), heardByB.join(','));
    assert.deepEqual(heardByA, [], 'A does not hear itself');

    await redis.stop();
    a.publish('lost while down: must not throw');
    await redis.start();
    heardByB.length = 0;
    await until(() => {
      a.publish('team-a');
      return heardByB.includes('team-a');
    }, 'B hears A after the restart');
  });

  it('tells the receiver when it subscribed again after its connection dropped, not when it first subscribed', async () => {
    const admin = await connect();
    let resubscribed = 0;
    const channel = openRedisChannel(
      await connect(),
      'test:resubscribe',
      () => undefined,
      () => undefined,
      () => {
        resubscribed += 1;
      },
    );
    channels.push(channel);
    const subscribers = async () => ((await admin.call('PUBSUB', 'NUMSUB', 'test:resubscribe')) as [string, number])[1];
    for (let i = 0; i < 200 && (await subscribers()) === 0; i++) await new Promise((r) => setTimeout(r, 25));
    assert.equal(await subscribers(), 1, 'subscribed');
    assert.equal(resubscribed, 0, 'the first subscribe missed nothing');
    await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await until(() => resubscribed === 1, 'told once it subscribed again');
  });
});
