import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ResourceSubscriptions } from '../../../src/broker/changes/resource-subscriptions.ts';
import { defaultSessionIdleTtlMs } from '../../../src/broker/http/session-store.ts';
import type { Harness } from './fixtures.ts';
import { jsonRpcHeaders } from './raw-http.ts';
import {
  listTools,
  openEventStream,
  openSessionOn,
  sharedRedisServer,
  startSharedReplicas,
  subscribe,
  type EventStream,
  type OpenedSession,
  type SharedReplicasOptions,
} from './shared-replicas.ts';

/**
 * Stateful MCP sessions shared by two MCP listeners (two replicas) through a
 * real redis-server: the client's requests alternate between them, as behind
 * a round-robin load balancer, and a session survives the replica that opened
 * it. (test/e2e/replicas.test.ts does the same with two broker processes
 * behind haproxy.)
 */
describe('MCP sessions shared through Redis by two replicas', () => {
  const { connect: connectRedis } = sharedRedisServer();
  let a: Harness;
  let b: Harness;
  let prefix = 0;

  const replicas = (options: SharedReplicasOptions = {}) =>
    startSharedReplicas(connectRedis, `sessions-${prefix++}:`, options);

  /** A fetch that sends each request to the next live replica in turn. */
  function roundRobin(targets: () => Harness[]) {
    let turn = 0;
    const hits: string[] = [];
    const fetcher = async (_input: string | URL | Request, init?: RequestInit) => {
      const live = targets();
      const target = live[turn++ % live.length]!;
      hits.push(target === a ? 'a' : 'b');
      return fetch(target.url, init);
    };
    return { fetcher, hits };
  }

  async function connect(token: string, fetcher: typeof fetch) {
    const client = new Client({ name: 'replica-test', version: '0' });
    const transport = new StreamableHTTPClientTransport(new URL(a.url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
      fetch: fetcher,
    });
    await client.connect(transport);
    return { client, transport };
  }

  const textOf = (result: { content?: unknown }) => (result.content as Array<{ text: string }>)[0]!.text;

  it('serves one session from both replicas, with one memory, and checks the owner on each', async () => {
    [a, b] = await replicas();
    try {
      const { fetcher, hits } = roundRobin(() => [a, b]);
      const token = await a.token('grace@example.com');
      const { client, transport } = await connect(token, fetcher as typeof fetch);
      const texts: string[] = [];
      for (let i = 0; i < 4; i++) texts.push(textOf(await client.callTool({ name: 'echo', arguments: { text: 'x' } })));
      assert.ok(hits.includes('a') && hits.includes('b'), hits.join(','));
      // The session memory (a call counter here, mark_fetch's "unchanged" in the broker) followed the client.
      assert.deepEqual(
        texts,
        [1, 2, 3, 4].map((n) => `x from grace@example.com call ${n} session ${transport.sessionId}`),
      );
      // Another subject presenting the id gets 404 from either replica, as if it did not exist.
      const intruder = await a.token('mallory@example.com');
      for (const target of [a, b]) {
        const response = await fetch(target.url, {
          method: 'POST',
          headers: {
            ...jsonRpcHeaders(intruder),
            'mcp-session-id': transport.sessionId!,
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
        });
        assert.equal(response.status, 404);
        await response.text();
      }
      await transport.terminateSession();
      // Ended on one replica, it is gone on both.
      for (const target of [a, b]) {
        const response = await fetch(target.url, {
          method: 'POST',
          headers: {
            ...jsonRpcHeaders(token),
            'mcp-session-id': transport.sessionId!,
            'mcp-protocol-version': '2025-11-25',
          },
          body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
        });
        assert.equal(response.status, 404);
        await response.text();
      }
      await client.close();
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('goes on with the next request after the replica that opened the session is gone', async () => {
    [a, b] = await replicas();
    let aAlive = true;
    try {
      const { fetcher, hits } = roundRobin(() => (aAlive ? [a, b] : [b]));
      const { client, transport } = await connect(await a.token(), fetcher as typeof fetch);
      assert.equal(hits[0], 'a', 'initialize went to a');
      const before = textOf(await client.callTool({ name: 'echo', arguments: { text: 'one' } }));
      aAlive = false;
      await a.close();
      const afterDeath = textOf(await client.callTool({ name: 'echo', arguments: { text: 'two' } }));
      assert.match(before, /call 1 session/);
      assert.equal(afterDeath, `two from ada@example.com call 2 session ${transport.sessionId}`);
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === 'echo'));
      await client.close();
    } finally {
      if (aAlive) await a.close();
      await b.close();
    }
  });

  it("keeps the per-subject limit cluster-wide, closing the subject's oldest session", async () => {
    [a, b] = await replicas({ maxSessionsPerSubject: 2 });
    try {
      const { fetcher } = roundRobin(() => [a, b]);
      const token = await a.token('limit@example.com');
      const opened: Array<Awaited<ReturnType<typeof connect>>> = [];
      for (let i = 0; i < 3; i++) opened.push(await connect(token, fetcher as typeof fetch));
      await assert.rejects(() => opened[0]!.client.listTools(), /404|not found/i);
      for (const { client } of opened.slice(1)) assert.ok((await client.listTools()).tools.length > 0);
      for (const { client } of opened) await client.close();
    } finally {
      await a.close();
      await b.close();
    }
  });
  it('keeps one copy of a session whose first two requests reach a replica at the same moment', async () => {
    const held = new CopiesSubscribed();
    [a, b] = await replicas({ subscriptions: [new ResourceSubscriptions(), held] });
    try {
      const token = await a.token('failover@example.com');
      // Two open connections to b, so that the two requests below reach it together.
      await Promise.all([statelessCall(b, token), statelessCall(b, token)]);
      for (let round = 0; round < 8; round++) {
        const session = await openSessionOn(a, token);
        assert.match((await session.post(a, subscribe('mark://alpha/x.md', 2))).text, /"result":\{\}/);
        // Failover: the client's next two requests (its new GET stream and a call, say) both reach b,
        // which has no copy yet. Each copy b restores subscribes again to what the memory holds.
        const replies = await Promise.all([session.post(b, listTools(3)), session.post(b, listTools(4))]);
        assert.deepEqual(
          replies.map((reply) => reply.status),
          [200, 200],
        );
        assert.equal(held.copies.size, 1, `round ${round}: b made one copy of the session, not one per request`);
        assert.equal(await session.end(b), 200);
        assert.equal(held.copies.size, 0, `round ${round}: ending the session closed every copy b made`);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('keeps both of two subscriptions a client sends at the same moment through two replicas', async () => {
    const registries: [ResourceSubscriptions, ResourceSubscriptions] = [
      new ResourceSubscriptions(),
      new ResourceSubscriptions(),
    ];
    [a, b] = await replicas({ subscriptions: registries });
    try {
      const token = await a.token('subscriber@example.com');
      /** The next request on either replica finds the session as both replicas confirmed it. */
      const bothCopiesWatch = async (session: OpenedSession, uris: string[], when: string) => {
        for (const [replica, registry] of [
          [a, registries[0]],
          [b, registries[1]],
        ] as const) {
          assert.equal((await session.post(replica, listTools(4))).status, 200);
          const copy = replica.listener.sessions.peek(session.id);
          assert.ok(copy);
          assert.deepEqual(
            registry.urisOf(copy.state).sort(),
            uris,
            `${when}: the copy on ${replica === a ? 'a' : 'b'} watches ${uris.join(' and ')}`,
          );
        }
      };
      for (let round = 0; round < 5; round++) {
        const session = await openSessionOn(a, token);
        assert.equal((await session.post(b, listTools(1))).status, 200, 'b has its copy too');
        const replies = await Promise.all([
          session.post(a, subscribe('mark://alpha/x.md', 2)),
          session.post(b, subscribe('mark://alpha/y.md', 3)),
        ]);
        for (const reply of replies) assert.match(reply.text, /"result":\{\}/, 'both subscriptions were confirmed');
        await bothCopiesWatch(session, ['mark://alpha/x.md', 'mark://alpha/y.md'], `round ${round}`);
        // An unsubscribe beside a subscribe: each keeps its effect too.
        const next = await Promise.all([
          session.post(a, {
            jsonrpc: '2.0',
            id: 5,
            method: 'resources/unsubscribe',
            params: { uri: 'mark://alpha/x.md' },
          }),
          session.post(b, subscribe('mark://alpha/z.md', 6)),
        ]);
        for (const reply of next) assert.match(reply.text, /"result":\{\}/);
        await bothCopiesWatch(session, ['mark://alpha/y.md', 'mark://alpha/z.md'], `round ${round}, then`);
        assert.equal(await session.end(a), 200);
      }
    } finally {
      await a.close();
      await b.close();
    }
  });

  it("keeps a replica's copy, and the client's event stream on it, while the session is used through the other", async () => {
    let now = 0;
    const onA = new ResourceSubscriptions();
    [a, b] = await replicas({ subscriptions: [onA, new ResourceSubscriptions()], clockOfA: () => now });
    let stream: EventStream | undefined;
    try {
      const token = await a.token('streamer@example.com');
      const session = await openSessionOn(a, token);
      stream = await openEventStream(a, token, session.id);
      assert.match((await session.post(a, subscribe('mark://alpha/x.md', 2))).text, /"result":\{\}/);
      // The client's calls go through b; on a's clock the session then sits idle past its TTL.
      assert.equal((await session.post(b, listTools(3))).status, 200);
      now += defaultSessionIdleTtlMs + 1;
      await a.listener.sessions.sweep();
      assert.ok(a.listener.sessions.peek(session.id), 'a keeps its copy of a session in use through b');
      onA.changed('alpha', '/x.md');
      assert.match(await stream.until(/notifications\/resources\/updated/), /mark:\/\/alpha\/x\.md/);
      // Once the session has ended, a's next sweep closes its copy and the stream.
      assert.equal(await session.end(b), 200);
      now += defaultSessionIdleTtlMs + 1;
      await a.listener.sessions.sweep();
      assert.equal(a.listener.sessions.peek(session.id), undefined, 'a closed its copy of a session that ended');
      await stream.closed;
    } finally {
      stream?.abort();
      await a.close();
      await b.close();
    }
  });
});

/** A call without a session, so that the replica's connection is open before the calls that race. */
async function statelessCall(target: Harness, token: string): Promise<void> {
  const response = await fetch(target.url, {
    method: 'POST',
    headers: { ...jsonRpcHeaders(token), 'mcp-protocol-version': '2025-11-25' },
    body: JSON.stringify(listTools(1)),
  });
  assert.equal(response.status, 200);
  await response.text();
}

/** A replica's real registry, also counting the session copies subscribed in it. */
class CopiesSubscribed extends ResourceSubscriptions {
  readonly copies = new Set<object>();
  override subscribe(...args: Parameters<ResourceSubscriptions['subscribe']>) {
    const target = super.subscribe(...args);
    this.copies.add(args[0]);
    return target;
  }
  override drop(session: object): void {
    super.drop(session);
    this.copies.delete(session);
  }
}

describe('session memory as JSON', () => {
  it("round-trips mark_fetch's Map in order, and ignores text that is not a snapshot", async () => {
    const { BoundedSessionState } = await import('../../../src/broker/http/session-state.ts');
    const state = new BoundedSessionState('s');
    const seen = new Map([
      ['mark://a/x.md', { version: '2', etag: 'e2' }],
      ['mark://a/y.md', { version: '', etag: 'e9' }],
    ]);
    state.set('mark_fetch.seen', seen);
    state.set('calls', 3);
    assert.equal(state.changed, true);
    const text = state.snapshot();
    assert.equal(state.changed, false);
    const copy = new BoundedSessionState('s');
    copy.restore(text);
    assert.deepEqual([...copy.get<Map<string, unknown>>('mark_fetch.seen')!], [...seen]);
    assert.equal(copy.get('calls'), 3);
    copy.restore('{not json');
    assert.equal(copy.size, 0);
  });

  it('keeps one key apart from the snapshot, and takes it back beside one on restore', async () => {
    const { BoundedSessionState } = await import('../../../src/broker/http/session-state.ts');
    const state = new BoundedSessionState('s');
    state.set('calls', 2);
    state.set('resources/subscribed', ['mark://a/x.md']);
    const text = state.snapshot('resources/subscribed');
    assert.doesNotMatch(text, /x\.md/);
    const copy = new BoundedSessionState('s');
    let told = 0;
    copy.onRestore(() => (told += copy.get<string[]>('resources/subscribed')?.length ?? 0));
    copy.restore(text, [['resources/subscribed', ['mark://a/y.md']]]);
    assert.equal(copy.get('calls'), 2);
    assert.deepEqual(copy.get('resources/subscribed'), ['mark://a/y.md']);
    assert.equal(told, 1, 'the listeners see the key kept apart');
    assert.equal(copy.changed, false);
  });
});
