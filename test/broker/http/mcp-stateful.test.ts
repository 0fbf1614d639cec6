import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Client as V1Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as V1Transport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ResourceSubscriptions } from '../../../src/broker/changes/resource-subscriptions.ts';
import type { Identity } from '../../../src/broker/identity.ts';
import type { SessionState, ToolContext } from '../../../src/broker/mcp/definitions.ts';
import { runTool } from '../../../src/broker/mcp/run-tool.ts';
import { definitions, listingGateway, startListener, type Harness } from './fixtures.ts';
import { jsonRpcHeaders, rawRequest } from './raw-http.ts';

function textOf(result: { content?: unknown }): string {
  const [first] = result.content as Array<{ type: string; text: string }>;
  assert.equal(first?.type, 'text');
  return first.text;
}

async function connect(
  harness: Harness,
  token: string,
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const client = new Client({ name: 'stateful-test', version: '0' });
  const transport = new StreamableHTTPClientTransport(new URL(harness.url), {
    requestInit: { headers: { authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return { client, transport };
}

describe('stateful MCP sessions (protocol 2025-11-25)', () => {
  let harness: Harness;
  before(async () => {
    harness = await startListener();
  });
  after(() => harness.close());

  it('negotiates 2025-11-25, hands out a session id and lists the tools with readOnlyHint', async () => {
    const { client, transport } = await connect(harness, await harness.token());
    assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
    assert.match(transport.sessionId ?? '', /^[0-9a-f-]{36}$/);
    const { tools } = await client.listTools();
    assert.deepEqual(
      tools.map((t) => [t.name, t.annotations?.readOnlyHint]),
      [
        ['echo', true],
        ['refuse', false],
        ['explode', true],
        ['unreachable', true],
      ],
    );
    assert.deepEqual(tools[0]?.inputSchema.required, ['text']);
    await transport.terminateSession();
    await client.close();
  });

  it('calls a tool with the verified identity and keeps per-session state across calls', async () => {
    const { client, transport } = await connect(harness, await harness.token('grace@example.com'));
    const first = await client.callTool({ name: 'echo', arguments: { text: 'hello' } });
    const second = await client.callTool({ name: 'echo', arguments: { text: 'again' } });
    assert.equal(textOf(first), `hello from grace@example.com call 1 session ${transport.sessionId}`);
    assert.equal(textOf(second), `again from grace@example.com call 2 session ${transport.sessionId}`);
    assert.equal(first.isError, false);
    await transport.terminateSession();
    await client.close();
  });

  it('frees the session on DELETE, after which its id answers 404', async () => {
    const { client, transport } = await connect(harness, await harness.token());
    const before = harness.listener.sessions.size;
    const sessionId = transport.sessionId!;
    await transport.terminateSession();
    assert.equal(harness.listener.sessions.size, before - 1);
    const reuse = await rawRequest(harness.url, {
      method: 'POST',
      headers: {
        ...jsonRpcHeaders(await harness.token()),
        'mcp-session-id': sessionId,
        'mcp-protocol-version': '2025-11-25',
      },
      body: '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
    });
    assert.equal(reuse.status, 404);
    assert.deepEqual(reuse.json().error, { code: -32001, message: 'Session not found' });
    await client.close();
  });

  it('ends a session on a DELETE that carries Content-Type: application/json and no body', async () => {
    // The v2 SDK client copies its request headers, Content-Type included, onto its DELETE.
    const { client, transport } = await connect(harness, await harness.token());
    const before = harness.listener.sessions.size;
    const headers = {
      ...jsonRpcHeaders(await harness.token()),
      'mcp-session-id': transport.sessionId!,
      'mcp-protocol-version': '2025-11-25',
    };
    const ended = await rawRequest(harness.url, { method: 'DELETE', headers });
    assert.equal(ended.status, 200);
    assert.equal(harness.listener.sessions.size, before - 1);
    const stream = await rawRequest(harness.url, { method: 'GET', headers });
    assert.equal(stream.status, 404);
    await client.close();
  });

  it('still refuses a POST whose JSON body is empty', async () => {
    const response = await rawRequest(harness.url, {
      method: 'POST',
      headers: { ...jsonRpcHeaders(await harness.token()), 'mcp-protocol-version': '2025-11-25' },
      body: '',
    });
    assert.equal(response.status, 400);
    assert.equal(response.json().error.code, -32700);
  });

  it('reports a tool error as isError with the tool text', async () => {
    const { client, transport } = await connect(harness, await harness.token());
    const result = await client.callTool({ name: 'refuse', arguments: {} });
    assert.equal(result.isError, true);
    assert.equal(textOf(result), 'status: not-permitted');
    await transport.terminateSession();
    await client.close();
  });

  it('turns a thrown handler error into a generic tool error without internal detail', async () => {
    const { client, transport } = await connect(harness, await harness.token());
    const result = await client.callTool({ name: 'explode', arguments: {} });
    assert.equal(result.isError, true);
    assert.equal(textOf(result), 'explode failed: internal error');
    const gateway = await client.callTool({ name: 'unreachable', arguments: {} });
    // An escaped gateway error reads as the failures tools report themselves (`<verb> failed: ...`).
    assert.equal(textOf(gateway), 'unreachable failed: world "alpha" is unavailable');
    await transport.terminateSession();
    await client.close();
  });

  it('answers invalid arguments with the tool schema message, as runTool does in tests', async () => {
    const { client, transport } = await connect(harness, await harness.token());
    const result = await client.callTool({ name: 'echo', arguments: { text: 42 } });
    assert.equal(result.isError, true);
    const ctx = { gateway: listingGateway, identity: {} as Identity, session: {} as SessionState };
    const direct = await runTool(definitions.tools[0]!, { text: 42 }, ctx as ToolContext);
    assert.deepEqual({ text: textOf(result), isError: true }, direct);
    assert.equal(textOf(result), 'Invalid input: expected string, received number');
    await transport.terminateSession();
    await client.close();
  });

  it('answers an unknown tool with a protocol error', async () => {
    const { client, transport } = await connect(harness, await harness.token());
    await assert.rejects(client.callTool({ name: 'mark_nothing', arguments: {} }), /Tool mark_nothing not found/);
    await transport.terminateSession();
    await client.close();
  });

  it('lists concrete resources and the template, and reads through the template with an anchor', async () => {
    const { client, transport } = await connect(harness, await harness.token());
    assert.deepEqual(
      (await client.listResources()).resources.map((r) => r.uri),
      ['mark://alpha/index.md', 'mark://beta/index.md'],
    );
    assert.deepEqual(
      (await client.listResourceTemplates()).resourceTemplates.map((t) => t.uriTemplate),
      ['mark://{world}/{+path}'],
    );
    const read = await client.readResource({ uri: 'mark://alpha/notes/a.md#setup' });
    assert.deepEqual(read.contents, [
      {
        uri: 'mark://alpha/notes/a.md#setup',
        mimeType: 'text/markdown',
        text: '# mark://alpha/notes/a.md#setup for ada@example.com',
      },
    ]);
    await assert.rejects(client.readResource({ uri: 'mark://zeta/a.md' }), /Resource not found/);
    await transport.terminateSession();
    await client.close();
  });

  it('lists prompts and renders one with its arguments and the world names', async () => {
    const { client, transport } = await connect(harness, await harness.token());
    assert.deepEqual(
      (await client.listPrompts()).prompts.map((p) => [p.name, p.arguments?.map((a) => [a.name, a.required])]),
      [['orient', [['topic', false]]]],
    );
    const prompt = await client.getPrompt({ name: 'orient', arguments: { topic: 'deploys' } });
    assert.deepEqual(prompt.messages, [
      { role: 'user', content: { type: 'text', text: 'worlds: alpha,beta; topic: deploys' } },
    ]);
    await transport.terminateSession();
    await client.close();
  });

  it('serves a v1 SDK client (@modelcontextprotocol/sdk 1.x) the same way', async () => {
    const client = new V1Client({ name: 'v1', version: '0' });
    const transport = new V1Transport(new URL(harness.url), {
      requestInit: { headers: { authorization: `Bearer ${await harness.token()}` } },
    });
    await client.connect(transport);
    assert.ok(transport.sessionId);
    const result = await client.callTool({ name: 'echo', arguments: { text: 'v1' } });
    assert.equal(
      textOf(result as { content?: unknown }),
      `v1 from ada@example.com call 1 session ${transport.sessionId}`,
    );
    await transport.terminateSession();
    await client.close();
  });
});

describe('a session whose event stream is open', () => {
  it('outlives its idle TTL and goes on hearing of changes; once the stream closes, the sweep ends it', async () => {
    const subscriptions = new ResourceSubscriptions();
    const harness = await startListener({
      sessions: { idleTtlMs: 1000 },
      server: { serverInfo: { name: 't', version: '0' }, definitions, gateway: listingGateway, subscriptions },
    });
    after(() => harness.close());
    const { client } = await connect(harness, await harness.token());
    const updates: string[] = [];
    client.setNotificationHandler('notifications/resources/updated', (n) => void updates.push(n.params.uri));
    await client.subscribeResource({ uri: 'mark://alpha/a.md' });
    // Sweeps run every second (the floor, src/broker/http/mcp-listener.ts): three of them pass the TTL.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    assert.equal(harness.listener.sessions.size, 1);
    subscriptions.changed('alpha', '/a.md');
    for (let i = 0; i < 100 && updates.length === 0; i += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    assert.deepEqual(updates, ['mark://alpha/a.md']);
    await client.close();
    for (let i = 0; i < 200 && harness.listener.sessions.size > 0; i += 1)
      await new Promise((resolve) => setTimeout(resolve, 20));
    assert.equal(harness.listener.sessions.size, 0);
  });
});
