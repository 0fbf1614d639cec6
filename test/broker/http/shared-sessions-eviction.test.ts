/**
 * The per-subject session cap holds for the cluster (docs/security.md,
 * "Sessions"): a session evicted through one replica ends on the others too,
 * with the client's event stream and its notifications. Two real MCP
 * listeners sharing a real redis-server (test/broker/http/shared-replicas.ts).
 *
 * Before the fix (run against it, and failing): only the evicting replica
 * dropped its copy; the replica holding the evicted session's event stream
 * kept it, and kept notifying it, until its next renewal (up to half the idle
 * TTL, 15 minutes), one session past the cap meanwhile.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ResourceSubscriptions } from '../../../src/broker/changes/resource-subscriptions.ts';
import {
  openEventStream,
  openSessionOn,
  sharedRedisServer,
  sharedSessionDirectory,
  startSharedReplicas,
  subscribe,
} from './shared-replicas.ts';

describe('a shared session evicted by its subject cap through another replica', () => {
  const { connect } = sharedRedisServer();

  it('ends on the replica holding its event stream, stream and notifications with it', async () => {
    const onA = new ResourceSubscriptions();
    const [a, b] = await startSharedReplicas(connect, 'eviction:', {
      maxSessionsPerSubject: 1,
      subscriptions: [onA, new ResourceSubscriptions()],
    });
    const directory = await sharedSessionDirectory(connect(), 'eviction:');
    const token = await a.token('streamer@example.com');
    const first = await openSessionOn(a, token);
    const stream = await openEventStream(a, token, first.id);
    try {
      assert.match((await first.post(a, subscribe('mark://alpha/x.md', 2))).text, /"result":\{\}/);
      const copy = a.listener.sessions.peek(first.id);
      assert.ok(copy);
      assert.deepEqual(onA.urisOf(copy.state), ['mark://alpha/x.md']);

      // The subject's cap is 1: its second session, opened through b, evicts the first cluster-wide.
      await openSessionOn(b, token);
      assert.equal(await directory.loadMemory(first.id), null, 'Redis no longer holds the first session');
      for (let i = 0; i < 200 && a.listener.sessions.peek(first.id) !== undefined; i++)
        await new Promise((resolve) => setTimeout(resolve, 25));
      assert.equal(a.listener.sessions.peek(first.id), undefined, 'a closed its copy of the evicted session');
      await stream.closed;
      assert.deepEqual(onA.urisOf(copy.state), [], 'nothing left to notify');
      assert.equal((await first.post(a, { jsonrpc: '2.0', id: 3, method: 'tools/list' })).status, 404);
    } finally {
      stream.abort();
      await a.close();
      await b.close();
    }
  });
});
