/**
 * The client's DELETE of a shared session while the replica it reaches
 * cannot reach Redis: it must not be told the session ended while the session
 * lives on through every other replica. Two real MCP listeners sharing a real
 * redis-server (test/broker/http/shared-replicas.ts); the outage is the first
 * replica's connection to Redis cut.
 *
 * Before the fix (run against it, and failing): the SDK's transport answered
 * the DELETE 200 and only then deleted the record, logging the failure, so
 * the record stayed and the other replica went on serving the session the
 * client had ended (review scratch: DELETE 200, then POST through b 200).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  cut,
  listTools,
  openSessionOn,
  reconnect,
  sharedRedisServer,
  sharedSessionDirectory,
  startSharedReplicas,
} from './shared-replicas.ts';
import { jsonRpcHeaders } from './raw-http.ts';

describe('a DELETE of a shared session on a replica that cannot reach Redis', () => {
  const { connect, connections } = sharedRedisServer();

  it('answers 503 with Retry-After and ends nothing; sent again once Redis answers, it ends the session everywhere', async () => {
    const [a, b] = await startSharedReplicas(connect, 'delete:');
    const ofA = connections[0]!;
    const directory = await sharedSessionDirectory(connect(), 'delete:');
    try {
      const token = await a.token('deleter@example.com');
      const session = await openSessionOn(a, token);
      assert.equal((await session.post(b, listTools(1))).status, 200, 'b has its copy of the session');

      await cut(ofA);
      const refused = await fetch(a.url, {
        method: 'DELETE',
        headers: { ...jsonRpcHeaders(token), 'mcp-session-id': session.id, 'mcp-protocol-version': '2025-11-25' },
      });
      assert.equal(refused.status, 503);
      assert.equal(refused.headers.get('retry-after'), '2');
      await refused.text();
      assert.ok(a.listener.sessions.peek(session.id), 'a keeps its copy');
      await reconnect(ofA);
      assert.notEqual(await directory.loadMemory(session.id), null, 'the session lives on in Redis');
      assert.equal((await session.post(b, listTools(2))).status, 200, 'and through b');
      assert.equal((await session.post(a, listTools(3))).status, 200, 'and through a');

      assert.equal(await session.end(a), 200);
      assert.equal(await directory.loadMemory(session.id), null, 'the DELETE ended the record');
      assert.equal((await session.post(b, listTools(4))).status, 404);
      assert.equal((await session.post(a, listTools(5))).status, 404);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
