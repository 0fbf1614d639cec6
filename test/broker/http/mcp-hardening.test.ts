import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startListener, type Harness } from './fixtures.ts';
import { initializeBody, jsonRpcHeaders, rawRequest } from './raw-http.ts';

/**
 * Starts a listener with `options` for the describe block that calls it (its before and after hooks),
 * and returns it and `post`, an authenticated JSON-RPC ping sent with the given extra headers (Host, Origin).
 */
function pingWithHeaders(options: Parameters<typeof startListener>[0] = {}) {
  let harness: Harness;
  let token: string;
  before(async () => {
    harness = await startListener(options);
    token = await harness.token();
  });
  after(() => harness.close());
  return {
    harness: () => harness,
    post: (headers: Record<string, string>) =>
      rawRequest(harness.url, {
        method: 'POST',
        headers: { ...jsonRpcHeaders(token), ...headers },
        body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
      }),
  };
}

describe('malformed requests on /mcp get JSON-RPC errors, never a crash', () => {
  let harness: Harness;
  let token: string;
  before(async () => {
    harness = await startListener({ bodyLimitBytes: 4096 });
    token = await harness.token();
  });
  after(() => harness.close());

  const post = (body: string, headers: Record<string, string> = {}) =>
    rawRequest(harness.url, { method: 'POST', headers: { ...jsonRpcHeaders(token), ...headers }, body });

  it('answers invalid JSON with 400 and -32700', async () => {
    const response = await post('{"jsonrpc":');
    assert.equal(response.status, 400);
    assert.deepEqual(response.json(), {
      jsonrpc: '2.0',
      error: { code: -32700, message: 'Parse error: request body is not valid JSON' },
      id: null,
    });
  });

  it('answers an empty JSON body with 400 and -32700', async () => {
    assert.equal((await post('')).json().error.code, -32700);
  });

  for (const [name, body] of [
    ['an object that is not JSON-RPC', '{"hello":1}'],
    ['a bare number', '42'],
    ['an empty batch', '[]'],
  ] as const) {
    it(`answers ${name} with 400 and -32600`, async () => {
      const response = await post(body);
      assert.equal(response.status, 400);
      assert.equal(response.json().error.code, -32600);
    });
  }

  it('answers a body over the limit with 413 before parsing it', async () => {
    const response = await post(
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { pad: 'x'.repeat(5000) } }),
    );
    assert.equal(response.status, 413);
    assert.deepEqual(response.json().error, { code: -32600, message: 'Request body is too large' });
  });

  it('answers a non-JSON content type with 415', async () => {
    const response = await post('{"jsonrpc":"2.0","id":1,"method":"ping"}', { 'content-type': 'text/plain' });
    assert.equal(response.status, 415);
    assert.equal(response.json().error.code, -32600);
  });

  it('answers an unknown method with -32601', async () => {
    const response = await post('{"jsonrpc":"2.0","id":3,"method":"nope/nothing"}');
    assert.deepEqual(response.json(), { jsonrpc: '2.0', id: 3, error: { code: -32601, message: 'Method not found' } });
  });

  it('answers an unsupported MCP-Protocol-Version with 400', async () => {
    const response = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', {
      'mcp-protocol-version': '1999-01-01',
    });
    assert.equal(response.status, 400);
    assert.match(response.json().error.message, /Unsupported protocol version/);
  });

  it('answers an unknown session id with 404 and -32001', async () => {
    const response = await post('{"jsonrpc":"2.0","id":1,"method":"tools/list"}', {
      'mcp-session-id': 'no-such-session',
    });
    assert.equal(response.status, 404);
    assert.equal(response.json().error.code, -32001);
  });

  it('answers PUT with 405', async () => {
    const response = await rawRequest(harness.url, { method: 'PUT', headers: jsonRpcHeaders(token), body: '{}' });
    assert.equal(response.status, 405);
    assert.equal(response.headers.allow, 'GET, POST, DELETE');
  });

  it('accepts a notification with 202 and no body', async () => {
    const response = await post('{"jsonrpc":"2.0","method":"notifications/initialized"}');
    assert.equal(response.status, 202);
    assert.equal(response.text, '');
  });

  it('keeps serving after all of the above', async () => {
    const response = await post(initializeBody);
    assert.equal(response.status, 200);
    assert.ok(response.headers['mcp-session-id']);
  });
});

describe('DNS-rebinding protection (Host and Origin)', () => {
  const { harness, post } = pingWithHeaders();

  it('refuses a foreign Host with 403 and a JSON-RPC error without id', async () => {
    const response = await post({ host: 'evil.example:8080' });
    assert.equal(response.status, 403);
    assert.deepEqual(response.json(), {
      jsonrpc: '2.0',
      error: { code: -32000, message: 'Forbidden: Host evil.example is not allowed' },
      id: null,
    });
  });

  it('refuses a foreign Host before authentication and on the metadata routes too', async () => {
    const response = await rawRequest(harness().url, {
      path: '/.well-known/oauth-protected-resource',
      headers: { host: 'evil.example' },
    });
    assert.equal(response.status, 403);
  });

  it('refuses a foreign Origin with 403', async () => {
    const response = await post({ origin: 'https://evil.example' });
    assert.equal(response.status, 403);
    assert.match(response.json().error.message, /Origin https:\/\/evil.example is not allowed/);
  });

  it('refuses the opaque origin "null"', async () => {
    assert.equal((await post({ origin: 'null' })).status, 403);
  });

  it('accepts a loopback Host and a loopback Origin on any port', async () => {
    const response = await post({ host: 'localhost:9999', origin: 'http://localhost:5173' });
    assert.equal(response.status, 200);
    assert.deepEqual(response.json(), { jsonrpc: '2.0', id: 1, result: {} });
  });
});

describe('DNS-rebinding protection with configured hosts and origins', () => {
  const { post } = pingWithHeaders({
    allowedHosts: ['mcp.example.com', '127.0.0.1'],
    allowedOrigins: ['https://app.example.com'],
  });

  it('accepts a configured host and origin', async () => {
    assert.equal((await post({ host: 'MCP.example.com', origin: 'https://app.example.com' })).status, 200);
  });

  it('no longer accepts loopback origins or names that are not configured', async () => {
    assert.equal((await post({ origin: 'http://localhost:5173' })).status, 403);
    assert.equal((await post({ host: 'localhost' })).status, 403);
    assert.equal((await post({ origin: 'http://app.example.com' })).status, 403);
  });
});
