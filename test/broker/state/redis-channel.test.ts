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

  const connect = async (connectionName?: string) => {
    const client = new Redis({
      ...(connectionName ? { connectionName } : {}),
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

  it('carries every channel of one client on one subscriber connection, resubscribes them all, and keeps the rest when one closes', async () => {
    const admin = await connect();
    // ioredis' duplicate keeps the connection name: the subscribers of these two clients are told apart
    // from the earlier tests' by it.
    const client = await connect('shared-a');
    const publisher = await connect('shared-b');
    const pubsubConnections = async () =>
      String(await admin.call('CLIENT', 'LIST', 'TYPE', 'pubsub'))
        .split('\n')
        .filter((line) => / name=shared-[ab] /.test(line)).length;
    const heardFirst: string[] = [];
    const heardSecond: string[] = [];
    const resubscribed = { first: 0, second: 0 };
    const first = openRedisChannel(
      client,
      'test:shared:first',
      (m) => heardFirst.push(m),
      () => undefined,
      () => {
        resubscribed.first += 1;
      },
    );
    const second = openRedisChannel(
      client,
      'test:shared:second',
      (m) => heardSecond.push(m),
      () => undefined,
      () => {
        resubscribed.second += 1;
      },
    );
    channels.push(first, second);
    // Another replica's client publishes: a channel ignores its own messages.
    const otherFirst = openRedisChannel(
      publisher,
      'test:shared:first',
      () => undefined,
      () => undefined,
    );
    const otherSecond = openRedisChannel(
      publisher,
      'test:shared:second',
      () => undefined,
      () => undefined,
    );
    channels.push(otherFirst, otherSecond);
    await until(() => {
      otherFirst.publish('one');
      otherSecond.publish('two');
      return heardFirst.length > 0 && heardSecond.length > 0;
    }, 'both channels hear');
    assert.deepEqual([...new Set(heardFirst)], ['one'], 'the first channel hears only its own messages');
    assert.deepEqual([...new Set(heardSecond)], ['two'], 'the second channel hears only its own messages');
    assert.equal(await pubsubConnections(), 2, 'one subscriber connection per client, not one per channel');

    await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
    await until(() => resubscribed.first === 1 && resubscribed.second === 1, 'both told they subscribed again');
    heardFirst.length = 0;
    heardSecond.length = 0;
    await until(() => {
      otherFirst.publish('one again');
      otherSecond.publish('two again');
      return heardFirst.includes('one again') && heardSecond.includes('two again');
    }, 'both channels hear after the subscriber came back');
    assert.equal(await pubsubConnections(), 2, 'still one subscriber connection per client');

    await first.close();
    heardFirst.length = 0;
    heardSecond.length = 0;
    await until(() => {
      otherFirst.publish('one after close');
      otherSecond.publish('two after close');
      return heardSecond.includes('two after close');
    }, 'the second channel still hears once the first closed');
    assert.deepEqual(heardFirst, [], 'the closed channel hears nothing');
    const numsub = (await admin.call('PUBSUB', 'NUMSUB', 'test:shared:first', 'test:shared:second')) as [
      string,
      number,
      string,
      number,
    ];
    assert.deepEqual([numsub[1], numsub[3]], [1, 2], 'the closed channel is unsubscribed, the other is not');

    await second.close();
    await until(() => client.status === 'ready', 'the client itself stays connected');
    assert.equal(await pubsubConnections(), 1, "the last channel to close closes the client's shared connection");
  });
});
