/**
 * A shared session's places in its subscription bound (src/broker/http/shared-sessions.ts,
 * `reserveSubscription`) across a moment when Redis does not answer: a place
 * the session gave up then is given back once Redis answers again, and never
 * one another replica took again since.
 *
 * Before the fix (each test run against it, and failing): a place whose
 * give-back Redis did not take was forgotten or given back blindly. An
 * unsubscribe saved while Redis was down still counted when the client's
 * next subscribe came (refused as full with one subscription of two held);
 * a subscribe refused by the replica's copy after its place was taken, whose
 * release Redis did not answer, kept that place until the session ended, and
 * so did a subscribe whose save Redis did not answer, once unsubscribed; and
 * the retried removal of an unsubscribe made during the outage took away the
 * place of the same URI subscribed again through the other replica after it.
 *
 * Two real MCP listeners sharing a real redis-server
 * (test/broker/http/shared-replicas.ts, as test/security/subscription-cap-race.test.ts
 * uses them); the outage is one replica's connection to Redis cut, and the
 * session's record is read back by the real session directory.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Redis } from 'ioredis';
import { ResourceSubscriptions } from '../../../src/broker/changes/resource-subscriptions.ts';
import {
  cut,
  listTools,
  openSessionOn,
  reconnect,
  sharedRedisServer,
  sharedSessionDirectory,
  startSharedReplicas,
  storedSubscriptions,
  subscribe,
} from './shared-replicas.ts';

const cap = 2;
const limitRefusal = new RegExp(`at most ${cap} resource subscriptions per session`);
const confirmed = /"result":\{\}/;
const unsubscribe = (uri: string, id: number) => ({
  jsonrpc: '2.0',
  id,
  method: 'resources/unsubscribe',
  params: { uri },
});

/**
 * A replica's real registry that cuts its replica's Redis connection when its copy subscribes to one
 * URI, after Redis gave the place: what the request does next (a release, the save) finds no Redis.
 */
class CutsOnSubscribe extends ResourceSubscriptions {
  cutAt: { uri: string; connection: Redis; refuse: boolean } | undefined;
  override subscribe(...args: Parameters<ResourceSubscriptions['subscribe']>) {
    const cut = this.cutAt;
    if (cut === undefined || args[1] !== cut.uri) return super.subscribe(...args);
    this.cutAt = undefined;
    cut.connection.disconnect();
    // A copy that holds subscriptions another replica dropped refuses past its own count.
    if (cut.refuse) throw this.limitError();
    return super.subscribe(...args);
  }
}

describe("a shared session's subscription places when Redis does not answer", () => {
  const { connect: connectRedis } = sharedRedisServer();
  let prefix = 0;

  /** Two replicas with a bound of `cap`, their own Redis connections, and a directory to read the session back. */
  async function replicas(registryOfA = new ResourceSubscriptions({ perSession: cap })) {
    const created: Redis[] = [];
    const connect = () => {
      const connection = connectRedis();
      created.push(connection);
      return connection;
    };
    const keyPrefix = `subscription-outage-${prefix++}:`;
    const [a, b] = await startSharedReplicas(connect, keyPrefix, {
      subscriptions: [registryOfA, new ResourceSubscriptions({ perSession: cap })],
    });
    const ofA = created[0]!;
    const client = connect();
    const directory = await sharedSessionDirectory(client, keyPrefix);
    const token = await a.token(`outage-${prefix}@example.com`);
    const session = await openSessionOn(a, token);
    assert.equal((await session.post(b, listTools(1))).status, 200, 'b has its copy of the session');
    const held = () => storedSubscriptions(directory, session.id);
    const close = async () => {
      await a.close();
      await b.close();
    };
    return { a, b, ofA, session, held, close };
  }

  /**
   * `during` run while a replica's connection to Redis is cut, then the connection back. (Stopping
   * redis-server would lose the session's record with it: the test server keeps nothing on disk.)
   */
  async function outage(connection: Redis, during: () => Promise<void>): Promise<void> {
    await cut(connection);
    await during();
    await reconnect(connection);
  }

  it('gives back the place of an unsubscribe saved while Redis was down, at the next subscribe', async () => {
    const { a, ofA, session, held, close } = await replicas();
    try {
      assert.match((await session.post(a, subscribe('mark://alpha/x.md', 2))).text, confirmed);
      assert.match((await session.post(a, subscribe('mark://alpha/y.md', 3))).text, confirmed);
      await outage(ofA, async () => {
        assert.match((await session.post(a, unsubscribe('mark://alpha/x.md', 4))).text, confirmed);
      });
      assert.deepEqual(await held(), ['mark://alpha/x.md', 'mark://alpha/y.md'], 'the save of the unsubscribe failed');

      const reply = await session.post(a, subscribe('mark://alpha/z.md', 5));
      assert.doesNotMatch(reply.text, limitRefusal, 'one subscription held of two: not full');
      assert.match(reply.text, confirmed);
      assert.deepEqual(await held(), ['mark://alpha/y.md', 'mark://alpha/z.md']);
    } finally {
      await close();
    }
  });

  it('gives back a place taken for a subscribe the copy refused while its release found no Redis', async () => {
    const registryOfA = new CutsOnSubscribe({ perSession: cap });
    const { a, b, ofA, session, held, close } = await replicas(registryOfA);
    try {
      assert.match((await session.post(a, subscribe('mark://alpha/x.md', 2))).text, confirmed);
      registryOfA.cutAt = { uri: 'mark://alpha/w.md', connection: ofA, refuse: true };
      assert.match((await session.post(a, subscribe('mark://alpha/w.md', 3))).text, limitRefusal);
      assert.equal(registryOfA.cutAt, undefined, "a's copy refused w");
      assert.deepEqual(await held(), ['mark://alpha/w.md', 'mark://alpha/x.md'], "w's place was not released");
      await reconnect(ofA);

      // The next request a serves, whatever it is, gives w's place back; then b has room for y.
      assert.equal((await session.post(a, listTools(4))).status, 200);
      assert.deepEqual(await held(), ['mark://alpha/x.md']);
      assert.match((await session.post(b, subscribe('mark://alpha/y.md', 5))).text, confirmed);
      assert.deepEqual(await held(), ['mark://alpha/x.md', 'mark://alpha/y.md']);
    } finally {
      await close();
    }
  });

  it('gives back the place of a subscribe whose save found no Redis, once the client drops it', async () => {
    const registryOfA = new CutsOnSubscribe({ perSession: cap });
    const { a, b, ofA, session, held, close } = await replicas(registryOfA);
    try {
      registryOfA.cutAt = { uri: 'mark://alpha/x.md', connection: ofA, refuse: false };
      assert.match((await session.post(a, subscribe('mark://alpha/x.md', 2))).text, confirmed);
      assert.equal(registryOfA.cutAt, undefined, "a's copy subscribed to x, and its save found no Redis");
      await reconnect(ofA);

      assert.match((await session.post(a, unsubscribe('mark://alpha/x.md', 3))).text, confirmed);
      assert.deepEqual(await held(), [], "x's place was given back with the unsubscribe's save");
      assert.match((await session.post(b, subscribe('mark://alpha/y.md', 4))).text, confirmed);
      assert.match((await session.post(b, subscribe('mark://alpha/z.md', 5))).text, confirmed);
    } finally {
      await close();
    }
  });

  it('keeps the place of a URI subscribed again through the other replica after the outage', async () => {
    const { a, b, ofA, session, held, close } = await replicas();
    try {
      assert.match((await session.post(a, subscribe('mark://alpha/x.md', 2))).text, confirmed);
      assert.match((await session.post(a, subscribe('mark://alpha/y.md', 3))).text, confirmed);
      await outage(ofA, async () => {
        assert.match((await session.post(a, unsubscribe('mark://alpha/x.md', 4))).text, confirmed);
      });
      // The client subscribes to x again, through b, once Redis answers: the last word on x.
      assert.match((await session.post(b, subscribe('mark://alpha/x.md', 5))).text, confirmed);
      // a serves its next request, and gives back what it could not before.
      assert.equal((await session.post(a, listTools(6))).status, 200);
      assert.deepEqual(
        await held(),
        ['mark://alpha/x.md', 'mark://alpha/y.md'],
        "x, subscribed again after a's unsubscribe, stays counted",
      );
      assert.match((await session.post(b, subscribe('mark://alpha/z.md', 7))).text, limitRefusal);
    } finally {
      await close();
    }
  });
});
