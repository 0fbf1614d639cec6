import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { ResourceSubscriptions } from '../../../src/broker/changes/resource-subscriptions.ts';
import { definitions, listingGateway, startListener, type Harness } from './fixtures.ts';
import { jsonRpcHeaders, rawRequest } from './raw-http.ts';

const callEcho = (id: number, text: string) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text } } });

describe('stateless requests on the stateful endpoint', () => {
  let harness: Harness;
  before(async () => {
    harness = await startListener();
  });
  after(() => harness.close());

  it('serves a tools/call without a session id and without opening a session', async () => {
    const before = harness.listener.sessions.size;
    const response = await rawRequest(harness.url, {
      method: 'POST',
      headers: { ...jsonRpcHeaders(await harness.token()), 'mcp-protocol-version': '2025-11-25' },
      body: callEcho(7, 'solo'),
    });
    assert.equal(response.status, 200);
    assert.equal(response.headers['mcp-session-id'], undefined);
    assert.deepEqual(response.json(), {
      jsonrpc: '2.0',
      id: 7,
      result: { content: [{ type: 'text', text: 'solo from ada@example.com call 1 session none' }], isError: false },
    });
    assert.equal(harness.listener.sessions.size, before);
  });

  it('gives each stateless request fresh session state', async () => {
    const token = await harness.token();
    for (const id of [1, 2]) {
      const response = await rawRequest(harness.url, {
        method: 'POST',
        headers: jsonRpcHeaders(token),
        body: callEcho(id, 'x'),
      });
      assert.match(response.json().result.content[0].text, /call 1 session none$/);
    }
  });

  it('answers every list whole, and refuses a cursor on each of them: none was ever handed out', async () => {
    const token = await harness.token();
    const lists = { 'tools/list': 'tools', 'prompts/list': 'prompts', 'resources/list': 'resources' };
    const all = { ...lists, 'resources/templates/list': 'resourceTemplates' };
    for (const [method, field] of Object.entries(all)) {
      const ask = async (params: object) =>
        (
          await rawRequest(harness.url, {
            method: 'POST',
            headers: { ...jsonRpcHeaders(token), 'mcp-protocol-version': '2025-11-25' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
          })
        ).json();
      const whole = await ask({});
      assert.ok(whole.result[field].length > 0, `${method} lists something`);
      assert.equal(whole.result.nextCursor, undefined);
      const paged = await ask({ cursor: 'x' });
      assert.equal(paged.error?.code, -32602, `${method} refuses a cursor`);
      assert.match(paged.error.message, /invalid cursor/);
    }
  });

  it('answers GET without a session id with 405 and Allow: POST', async () => {
    const response = await rawRequest(harness.url, {
      headers: { authorization: `Bearer ${await harness.token()}`, accept: 'text/event-stream' },
    });
    assert.equal(response.status, 405);
    assert.equal(response.headers.allow, 'POST');
  });
});

describe('stateless session mode', () => {
  let harness: Harness;
  before(async () => {
    harness = await startListener({ sessionMode: 'stateless' });
  });
  after(() => harness.close());

  it('lets the SDK client initialize and call tools without a session id', async () => {
    const client = new Client({ name: 'stateless', version: '0' });
    const transport = new StreamableHTTPClientTransport(new URL(harness.url), {
      requestInit: { headers: { authorization: `Bearer ${await harness.token()}` } },
    });
    await client.connect(transport);
    assert.equal(transport.sessionId, undefined);
    assert.equal(client.getNegotiatedProtocolVersion(), '2025-11-25');
    const result = await client.callTool({ name: 'echo', arguments: { text: 'hi' } });
    assert.deepEqual(result.content, [{ type: 'text', text: 'hi from ada@example.com call 1 session none' }]);
    assert.equal(harness.listener.sessions.size, 0);
    await client.close();
  });
});

describe('protocol 2026-07-28 (per-request envelope, no sessions)', () => {
  let harness: Harness;
  before(async () => {
    harness = await startListener();
  });
  after(() => harness.close());

  for (const mode of ['auto', { pin: '2026-07-28' }] as const) {
    it(`serves a client negotiating with ${JSON.stringify(mode)}`, async () => {
      const client = new Client({ name: 'modern', version: '0' }, { versionNegotiation: { mode } });
      const transport = new StreamableHTTPClientTransport(new URL(harness.url), {
        requestInit: { headers: { authorization: `Bearer ${await harness.token('lin@example.com')}` } },
      });
      await client.connect(transport);
      assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
      assert.equal(transport.sessionId, undefined);
      assert.deepEqual(
        (await client.listTools()).tools.map((t) => t.name),
        ['echo', 'refuse', 'explode', 'unreachable'],
      );
      const result = await client.callTool({ name: 'echo', arguments: { text: 'now' } });
      assert.deepEqual(result.content, [{ type: 'text', text: 'now from lin@example.com call 1 session none' }]);
      await assert.rejects(client.callTool({ name: 'nope', arguments: {} }), /Tool nope not found/);
      assert.equal(harness.listener.sessions.size, 0);
      await client.close();
    });
  }

  it('answers a header/body mismatch with 400 and -32020', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientInfo': { name: 'x', version: '0' },
          'io.modelcontextprotocol/clientCapabilities': {},
        },
      },
    });
    const headers = {
      ...jsonRpcHeaders(await harness.token()),
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': 'tools/call',
    };
    const response = await rawRequest(harness.url, { method: 'POST', headers, body });
    assert.equal(response.status, 400);
    assert.equal(response.json().error.code, -32020);
  });
});

describe('resource subscriptions without a session', () => {
  let harness: Harness;
  before(async () => {
    harness = await startListener({
      sessionMode: 'stateless',
      server: {
        serverInfo: { name: 't', version: '0' },
        definitions,
        gateway: listingGateway,
        subscriptions: new ResourceSubscriptions(),
      },
    });
  });
  after(() => harness.close());

  const post = async (body: object, headers: Record<string, string> = {}) =>
    rawRequest(harness.url, {
      method: 'POST',
      headers: { ...jsonRpcHeaders(await harness.token()), ...headers },
      body: JSON.stringify(body),
    });

  it('are not advertised by an initialize answered without a session, and are refused: nothing could deliver them', async () => {
    const initialized = await post({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '0' } },
    });
    assert.equal(initialized.headers['mcp-session-id'], undefined);
    assert.equal(initialized.json().result.capabilities.resources.subscribe, undefined);
    const subscribed = await post(
      { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri: 'mark://alpha/a.md' } },
      { 'mcp-protocol-version': '2025-11-25' },
    );
    assert.equal(subscribed.json().error.code, -32600);
    assert.match(subscribed.json().error.message, /resource subscriptions need an MCP session/);
  });

  it('are refused to a 2026-07-28 resources/subscribe, and advertised there for subscriptions/listen', async () => {
    const meta = {
      'io.modelcontextprotocol/protocolVersion': '2026-07-28',
      'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '0' },
      'io.modelcontextprotocol/clientCapabilities': {},
    };
    const subscribed = await post(
      { jsonrpc: '2.0', id: 3, method: 'resources/subscribe', params: { uri: 'mark://alpha/a.md', _meta: meta } },
      { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'resources/subscribe' },
    );
    // Not `{}`: that revision has no resources/subscribe, and the SDK says so.
    assert.equal(subscribed.json().result, undefined);
    assert.equal(subscribed.json().error.code, -32601);
    const client = new Client(
      { name: 'modern', version: '0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    await client.connect(
      new StreamableHTTPClientTransport(new URL(harness.url), {
        requestInit: { headers: { authorization: `Bearer ${await harness.token()}` } },
      }),
    );
    assert.equal(client.getServerCapabilities()?.resources?.subscribe, true);
    await client.close();
  });
});
