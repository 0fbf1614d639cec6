/**
 * A client's event stream held by one replica (a) while its session changes
 * through the other (b): what a learns of it when the pub/sub message meant
 * to tell it never came (src/broker/state/redis/redis-channel.ts is best
 * effort). Two real MCP listeners sharing a real redis-server
 * (test/broker/http/shared-replicas.ts).
 *
 * Before the fix (each test run against it, and failing): the renewal of the
 * streaming copy touched the record and dropped its revision, so a copy that
 * missed the announcement of a subscription never watched it, and the client
 * never heard of its changes, however many renewals came; a replica whose
 * subscriber reconnected did not read its streaming copies again either.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { ResourceSubscriptions } from '../../../src/broker/changes/resource-subscriptions.ts';
import { defaultSessionIdleTtlMs } from '../../../src/broker/http/session-store.ts';
import type { SharedSessions } from '../../../src/broker/http/shared-sessions.ts';
import type { Harness } from './fixtures.ts';
import {
  openEventStream,
  openSessionOn,
  sharedRedisServer,
  sharedSessionDirectory,
  startSharedReplicas,
  type EventStream,
} from './shared-replicas.ts';

const uri = 'mark://alpha/x.md';

describe("a replica holding a client's event stream, when an announcement of its subscriptions is lost", () => {
  const { connect: connectRedis } = sharedRedisServer();
  let prefix = 0;

  type Setup = {
    a: Harness;
    b: Harness;
    onA: ResourceSubscriptions;
    admin: Redis;
    directory: SharedSessions;
    sessionId: string;
    stream: EventStream;
    advanceA: (ms: number) => void;
    close: () => Promise<void>;
  };

  /**
   * A session opened on a, its event stream open on a; then a subscription saved in Redis as b's
   * subscribe leaves it (its place taken, its memory saved at the next revision), whose
   * announcement never reached a.
   */
  async function streamWithLostSubscription(): Promise<Setup> {
    let now = 0;
    const onA = new ResourceSubscriptions();
    const keyPrefix = `streams-${prefix++}:`;
    const connect = connectRedis;
    const [a, b] = await startSharedReplicas(connect, keyPrefix, {
      subscriptions: [onA, new ResourceSubscriptions()],
      clockOfA: () => now,
    });
    const admin = connect();
    const directory = await sharedSessionDirectory(admin, keyPrefix);
    const token = await a.token(`streamer-${prefix}@example.com`);
    const session = await openSessionOn(a, token);
    const stream = await openEventStream(a, token, session.id);
    assert.equal(await directory.reserveSubscription(session.id, uri, 256, 'place-of-b', []), 'added');
    assert.equal(await directory.saveState(session.id, '[]', [], []), 1);
    const copy = a.listener.sessions.peek(session.id);
    assert.ok(copy, 'a holds the copy the stream is on');
    assert.deepEqual(onA.urisOf(copy.state), [], 'a never heard of the subscription');
    const close = async () => {
      stream.abort();
      await a.close();
      await b.close();
    };
    return {
      a,
      b,
      onA,
      admin,
      directory,
      sessionId: session.id,
      stream,
      advanceA: (ms) => {
        now += ms;
      },
      close,
    };
  }

  it('reads the memory again when the renewal finds the record at a newer revision', async () => {
    const setup = await streamWithLostSubscription();
    try {
      setup.advanceA(defaultSessionIdleTtlMs / 2 + 1);
      await setup.a.listener.sessions.sweep();
      const copy = setup.a.listener.sessions.peek(setup.sessionId)!;
      assert.deepEqual(setup.onA.urisOf(copy.state), [uri], 'the renewal brought the subscription to the copy');
      setup.onA.changed('alpha', '/x.md');
      assert.match(await setup.stream.until(/notifications\/resources\/updated/), /mark:\/\/alpha\/x\.md/);
    } finally {
      await setup.close();
    }
  });

  it('reads the memory of its streaming copies again once its subscriber is back', async () => {
    const setup = await streamWithLostSubscription();
    try {
      // Both replicas' subscribers drop and reconnect (a failover, a network blip), no sweep due.
      await setup.admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub');
      const copy = setup.a.listener.sessions.peek(setup.sessionId)!;
      for (let i = 0; i < 200 && setup.onA.urisOf(copy.state).length === 0; i++)
        await new Promise((resolve) => setTimeout(resolve, 25));
      assert.deepEqual(setup.onA.urisOf(copy.state), [uri], 'the copy read its memory again after the reconnect');
      setup.onA.changed('alpha', '/x.md');
      assert.match(await setup.stream.until(/notifications\/resources\/updated/), /mark:\/\/alpha\/x\.md/);
    } finally {
      await setup.close();
    }
  });
});
