/**
 * Threat: a client takes one MCP session past its bound of resource
 * subscriptions (256 by default) by sending its `resources/subscribe` calls
 * at the same moment through several broker replicas. Each replica checked
 * the bound against its own copy of the session's subscriptions, then saved
 * what it had added to Redis: every replica whose copy was under the bound
 * confirmed, so the session went past it by the calls in flight, once per
 * replica, and every copy holding its stream subscribed to all of them.
 *
 * The attack succeeded before the fix (checked by running this file against
 * it, seven runs): with a bound of 4, eight subscribes through each of two
 * replicas at once had 5 to 8 confirmed in the first or second round, all of
 * them kept in Redis. Now the place is taken in Redis, atomically, before a
 * copy subscribes (src/broker/http/shared-sessions.ts, `reserveSubscription`).
 *
 * A second way past the bound, found in review: a copy's save after its
 * subscribe still added the URI's field, only re-asserting the reservation,
 * unless another replica dropped it in between. Then the save brought it
 * back after its unsubscribe had been confirmed, on top of a subscription that
 * had taken the freed place: replica A reserves x, replica B handles a
 * concurrent unsubscribe of x, y and z are reserved, A's save adds x again.
 * The attack succeeded before the fix (checked by running the test against
 * it): Redis held 3 subscriptions against a bound of 2, and x kept notifying
 * after its unsubscribe. Now a save only removes subscriptions; only
 * `reserveSubscription` adds them. A later review found that this still left
 * x in A's own copy when A reloaded on B's announce before its save (x counted
 * as confirmed and not yet saved): A kept notifying x while Redis held y and z
 * (checked by running the test against it). Now a save that carried an added
 * subscription reads the saved set back, so Redis decides
 * (src/broker/http/shared-memory.ts).
 *
 * Two real MCP listeners sharing a real redis-server
 * (test/broker/http/shared-replicas.ts), the session's record read back
 * from Redis by the real session directory; the second test drives two
 * replicas' copies of a session (SharedMemory) against that directory
 * directly, to order their steps.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResourceSubscriptions } from '../../src/broker/changes/resource-subscriptions.ts';
import { subscribedResourcesKey } from '../../src/broker/http/resource-subscribe.ts';
import { BoundedSessionState } from '../../src/broker/http/session-state.ts';
import { SharedMemory } from '../../src/broker/http/shared-memory.ts';
import {
  listTools,
  openSessionOn,
  sharedRedisServer,
  sharedSessionDirectory,
  startSharedReplicas,
  storedSubscriptions,
  subscribe,
} from '../broker/http/shared-replicas.ts';

const cap = 4;
const perReplica = 8;
const rounds = 8;
const limitRefusal = new RegExp(`at most ${cap} resource subscriptions per session`);

describe('the resource subscription bound of a session shared by two replicas', () => {
  const { connect } = sharedRedisServer();

  it('holds when subscribes race through both replicas at once', async () => {
    const keyPrefix = 'subscription-race:';
    const [a, b] = await startSharedReplicas(connect, keyPrefix, {
      subscriptions: [new ResourceSubscriptions({ perSession: cap }), new ResourceSubscriptions({ perSession: cap })],
    });
    const client = connect();
    const directory = await sharedSessionDirectory(client, keyPrefix);
    try {
      // Whether a replica's copy checks before the other's save reaches Redis depends on the moment:
      // a fresh session each round, and the bound must hold in every one.
      for (let round = 0; round < rounds; round++) {
        // A subject per round: a round's 20 messages would soon exhaust one subject's budget.
        const token = await a.token(`flooder-${round}@example.com`);
        const session = await openSessionOn(a, token);
        assert.equal((await session.post(b, listTools(1))).status, 200, 'b has its copy of the session');
        const uris = Array.from({ length: 2 * perReplica }, (_, i) => `mark://alpha/flood-${i}.md`);
        const replies = await Promise.all(
          uris.map((uri, i) => session.post(i % 2 === 0 ? a : b, subscribe(uri, 10 + i))),
        );
        const confirmed = uris.filter((_, i) => /"result":\{\}/.test(replies[i]!.text));
        const refused = replies.filter((reply) => !/"result":\{\}/.test(reply.text));
        for (const reply of refused) assert.match(reply.text, limitRefusal);
        assert.equal(
          confirmed.length,
          cap,
          `round ${round}: confirmed ${confirmed.length} subscriptions against a bound of ${cap}`,
        );
        assert.deepEqual(
          await storedSubscriptions(directory, session.id),
          confirmed.sort(),
          `round ${round}: Redis holds the confirmed ones, and only them`,
        );

        // The bound is the session's, not a replica's: one dropped through b frees one place through a.
        const dropped = { jsonrpc: '2.0', id: 40, method: 'resources/unsubscribe', params: { uri: confirmed[0] } };
        assert.match((await session.post(b, dropped)).text, /"result":\{\}/);
        const unconfirmed = uris.find((uri) => !confirmed.includes(uri))!;
        assert.match((await session.post(a, subscribe(unconfirmed, 41))).text, /"result":\{\}/);
        assert.match((await session.post(b, subscribe('mark://alpha/one-more.md', 42))).text, limitRefusal);
        assert.equal((await storedSubscriptions(directory, session.id))?.length, cap);
        assert.equal(await session.end(a), 200);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("holds when a copy's save follows another replica's unsubscribe of what it reserved", async () => {
    const client = connect();
    const directory = await sharedSessionDirectory(client, 'subscription-resurrect:');
    const id = 'session-1';
    const bound = 2;
    const subscriptionsOf = (state: BoundedSessionState) => state.get<string[]>(subscribedResourcesKey);
    assert.deepEqual(await directory.open(id, { subject: 'flooder@example.com', initialize: {} }), {
      opened: true,
      evicted: [],
    });
    // Each replica's copy of the session, as src/broker/http/mcp-endpoint.ts keeps it.
    const [copyA, memoryA] = [new BoundedSessionState(id), new SharedMemory(0)];
    const [copyB, memoryB] = [new BoundedSessionState(id), new SharedMemory(0)];

    // Replica A takes x's place and its copy subscribes (resource-subscribe.ts); its save comes after the reply.
    assert.equal(await directory.reserveSubscription(id, 'x', bound, 'place-x', []), 'added');
    copyA.set(subscribedResourcesKey, ['x']);
    // Replica B reads the session, handles the client's unsubscribe of x and saves.
    await memoryB.load(directory, id, copyB);
    assert.deepEqual(subscriptionsOf(copyB), ['x']);
    copyB.set(subscribedResourcesKey, []);
    assert.equal(await memoryB.save(directory, id, copyB), true);
    // B's save is announced, and A reloads its copy before its own save (reloadSessionMemory): x, confirmed
    // and not yet saved by A, is kept there as unsaved.
    await memoryA.load(directory, id, copyA);
    assert.deepEqual(subscriptionsOf(copyA), ['x'], 'A still holds x, confirmed and not yet saved');
    // The freed place is taken, and the bound's last one.
    assert.equal(await directory.reserveSubscription(id, 'y', bound, 'place-y', []), 'added');
    assert.equal(await directory.reserveSubscription(id, 'z', bound, 'place-z', []), 'added');
    // A's save of the subscribe it confirmed earlier.
    assert.equal(await memoryA.save(directory, id, copyA), true, "A's save carried x, an added subscription");

    assert.deepEqual(await storedSubscriptions(directory, id), ['y', 'z'], 'x stays unsubscribed and the bound holds');
    assert.deepEqual(subscriptionsOf(copyA)?.sort(), ['y', 'z'], "A's copy no longer holds x");
  });
});
