/**
 * The renewal of a shared session kept in use by the client's event stream
 * (SessionStore's `renewShared`, src/broker/http/mcp-endpoint.ts
 * `renewSharedSessions`) across a moment when Redis does not answer, against
 * a real redis-server: the record must be renewed by the next sweep, before
 * it expires, not half a TTL later.
 *
 * Before the fix (run against it, and failing): the sweep marked the copy used
 * before renewing it and ignored the failure, so the next renewal was due half
 * a TTL later; the record, renewed last half a TTL before the failed renewal,
 * expired in between and the directory ended the session under its listening
 * client (review: a 700 ms CLIENT PAUSE with a 2 s TTL ended it at the next
 * renewal, the client's next request getting 404).
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { describe, it } from 'node:test';
import { renewSharedSessions, type McpEndpoint } from '../../../src/broker/http/mcp-endpoint.ts';
import { BoundedSessionState } from '../../../src/broker/http/session-state.ts';
import { SessionStore } from '../../../src/broker/http/session-store.ts';
import { SharedMemory } from '../../../src/broker/http/shared-memory.ts';
import { SharedSessions } from '../../../src/broker/http/shared-sessions.ts';
import { cut, reconnect, sharedRedisServer } from './shared-replicas.ts';

const ttl = 60_000;

describe('a streaming shared session whose renewal Redis did not answer', () => {
  const { connect } = sharedRedisServer();

  it('is renewed by the next sweep, a quarter TTL later, while its record still lives', async () => {
    const client = connect();
    const admin = connect();
    await Promise.all([once(client, 'ready'), once(admin, 'ready')]);
    const directory = new SharedSessions({
      client,
      keyPrefix: 'renewal:',
      maxSessions: 10,
      maxSessionsPerSubject: 10,
      idleTtlMs: ttl,
    });
    let now = 0;
    const logged: string[] = [];
    const store: SessionStore = new SessionStore({
      idleTtlMs: ttl,
      now: () => now,
      renewShared: (ids) => renewSharedSessions(endpoint, ids),
    });
    const endpoint = {
      shared: directory,
      sessions: store,
      logError: (_error: unknown, message: string) => void logged.push(message),
    } as unknown as McpEndpoint;
    assert.deepEqual(await directory.open('s1', { subject: 'ada', initialize: {} }), { opened: true, evicted: [] });
    store.add({
      id: 's1',
      subject: 'ada',
      state: new BoundedSessionState('s1'),
      transport: { handleRequest: async () => {} },
      close: async () => {},
      shared: new SharedMemory(0),
      streaming: () => true,
    });

    // Half a TTL without a request: the renewal is due, and Redis does not answer it.
    now += ttl / 2;
    await cut(client);
    await store.sweep();
    assert.deepEqual(logged, [
      'MCP session directory unavailable: some streaming sessions not renewed until the next sweep',
    ]);
    // The record has lived half its TTL meanwhile (Redis keeps real time; the store runs on `now`).
    await admin.pexpire('renewal:mcp:s:s1', ttl / 2);
    await reconnect(client);

    now += ttl / 4;
    await store.sweep();
    const left = await admin.pttl('renewal:mcp:s:s1');
    assert.ok(left > ttl / 2, `the next sweep renewed the record (${left} ms left of ${ttl})`);
    assert.ok(store.peek('s1'), 'the copy, and the client stream on it, is still held');
  });
});
