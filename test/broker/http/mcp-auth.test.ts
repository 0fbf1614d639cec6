import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client, SdkHttpError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { mintBrokerToken } from '../../../src/broker/auth/mint-broker-token.ts';
import { generateSigningKeyPem, loadSigningKey } from '../../../src/broker/auth/signing-key.ts';
import { issuer, startListener, type Harness } from './fixtures.ts';
import { initializeBody, jsonRpcHeaders, rawRequest } from './raw-http.ts';

const metadataUrl = 'http://127.0.0.1/.well-known/oauth-protected-resource/mcp';
const challengeFor = (error: string, description: string) =>
  `Bearer realm="demarkus-broker", error="${error}", error_description="${description}", scope="mark.read mark.write", resource_metadata="${metadataUrl}"`;

describe('bearer authentication on /mcp (RFC 6750, RFC 9728 §5.1)', () => {
  let harness: Harness;
  before(async () => {
    harness = await startListener();
  });
  after(() => harness.close());

  const post = (headers: Record<string, string>) =>
    rawRequest(harness.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
      body: initializeBody,
    });

  it('answers a request without Authorization with 401, a challenge naming the metadata, and a JSON body', async () => {
    const response = await post({});
    assert.equal(response.status, 401);
    assert.equal(
      response.headers['www-authenticate'],
      challengeFor('invalid_request', 'Authorization: Bearer <token> required'),
    );
    assert.deepEqual(response.json(), {
      error: 'invalid_request',
      error_description: 'Authorization: Bearer <token> required',
    });
    assert.equal(harness.listener.sessions.size, 0);
  });

  it('answers a malformed Authorization header with 400 invalid_request', async () => {
    const response = await post({ authorization: 'Bearer a b' });
    assert.equal(response.status, 400);
    assert.equal(
      response.headers['www-authenticate'],
      challengeFor('invalid_request', 'malformed Authorization header'),
    );
  });

  it('answers a garbage token with 401 invalid_token', async () => {
    const response = await post({ authorization: 'Bearer garbage' });
    assert.equal(response.status, 401);
    assert.equal(response.headers['www-authenticate'], challengeFor('invalid_token', 'invalid bearer token'));
  });

  it('answers an expired token with 401 invalid_token', async () => {
    const token = await mintBrokerToken({
      key: harness.key,
      issuer,
      audience: harness.resource,
      email: 'ada@example.com',
      ttlSeconds: 60,
      now: () => new Date(Date.now() - 3600_000),
    });
    const response = await post({ authorization: `Bearer ${token}` });
    assert.equal(response.status, 401);
    assert.equal(response.headers['www-authenticate'], challengeFor('invalid_token', 'bearer token expired'));
  });

  it('answers a token for another resource with 401 (RFC 8707 audience)', async () => {
    const response = await post({
      authorization: `Bearer ${await harness.token('ada@example.com', { audience: 'https://other.example.com/mcp' })}`,
    });
    assert.equal(response.status, 401);
    assert.equal(response.json().error, 'invalid_token');
  });

  it('answers a token signed by another key with 401', async () => {
    const token = await mintBrokerToken({
      key: loadSigningKey(generateSigningKeyPem()),
      issuer,
      audience: harness.resource,
      email: 'ada@example.com',
    });
    assert.equal((await post({ authorization: `Bearer ${token}` })).status, 401);
  });

  it('never accepts a token from the query string (RFC 6750 §2.3 not offered)', async () => {
    const token = await harness.token();
    const response = await rawRequest(harness.url, {
      method: 'POST',
      path: `/mcp?access_token=${token}`,
      headers: { 'content-type': 'application/json' },
      body: initializeBody,
    });
    assert.equal(response.status, 401);
  });

  it('verifies every request of a session, not just initialize', async () => {
    const opened = await rawRequest(harness.url, {
      method: 'POST',
      headers: jsonRpcHeaders(await harness.token()),
      body: initializeBody,
    });
    const sessionId = opened.headers['mcp-session-id'] as string;
    assert.ok(sessionId);
    const response = await rawRequest(harness.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-session-id': sessionId,
      },
      body: '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
    });
    assert.equal(response.status, 401);
  });

  it('does not let another subject use a session (answers 404 as for an unknown id)', async () => {
    const opened = await rawRequest(harness.url, {
      method: 'POST',
      headers: jsonRpcHeaders(await harness.token('ada@example.com')),
      body: initializeBody,
    });
    const sessionId = opened.headers['mcp-session-id'] as string;
    const headers = {
      ...jsonRpcHeaders(await harness.token('mallory@example.com')),
      'mcp-session-id': sessionId,
      'mcp-protocol-version': '2025-11-25',
    };
    const response = await rawRequest(harness.url, {
      method: 'POST',
      headers,
      body: '{"jsonrpc":"2.0","id":2,"method":"tools/list"}',
    });
    assert.equal(response.status, 404);
    assert.equal(response.json().error.message, 'Session not found');
  });

  it('makes the SDK client fail with 401 when it has no token', async () => {
    const client = new Client({ name: 'anonymous', version: '0' });
    await assert.rejects(
      client.connect(new StreamableHTTPClientTransport(new URL(harness.url))),
      (error: unknown) => error instanceof SdkHttpError && error.status === 401,
    );
  });
});

describe('protected-resource metadata (RFC 9728)', () => {
  let harness: Harness;
  before(async () => {
    harness = await startListener();
  });
  after(() => harness.close());

  const expected = {
    resource: 'http://127.0.0.1/mcp',
    authorization_servers: [issuer],
    bearer_methods_supported: ['header'],
    scopes_supported: ['mark.read', 'mark.write'],
  };

  for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/mcp']) {
    it(`serves the document at ${path} without a token`, async () => {
      const response = await rawRequest(harness.url, { path });
      assert.equal(response.status, 200);
      assert.match(String(response.headers['content-type']), /^application\/json/);
      assert.equal(response.headers['cache-control'], 'public, max-age=300');
      assert.deepEqual(response.json(), expected);
    });
  }

  it('serves no authorization-server metadata on the MCP listener', async () => {
    assert.equal((await rawRequest(harness.url, { path: '/.well-known/oauth-authorization-server' })).status, 404);
  });
});
