/**
 * Threat: a token used beyond what the user consented to. A `mark.read` token
 * (what the consent page showed) must not publish, and a client registered for
 * one grant type must not use another.
 *
 * Real QUIC worlds, the real broker, the real MCP SDK client, and the
 * broker's own OAuth endpoints over HTTP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mintBrokerToken } from '../../src/broker/auth/mint-broker-token.ts';
import { isError, resultText, startStack, type Stack } from '../e2e/stack-fixture.ts';
import { jsonRpcHeaders, rawRequest } from '../broker/http/raw-http.ts';
import { startSignInStack, type SignInStack } from '../e2e/signin-fixture.ts';

describe('security: scopes are enforced per call', () => {
  let stack: Stack;
  let readOnlyToken: string;
  before(async () => {
    stack = await startStack({ worlds: ['team-a'] });
    const { trust } = stack.broker;
    readOnlyToken = await mintBrokerToken({
      key: trust.key,
      issuer: trust.issuer,
      audience: trust.resource,
      email: 'reader@example.com',
      scope: 'mark.read',
      ttlSeconds: 600,
    });
  });
  after(async () => stack?.close());

  it('refuses mark_publish with a mark.read token: 403 insufficient_scope naming mark.write', async () => {
    const body = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: {
        name: 'mark_publish',
        arguments: { url: 'mark://team-a/owned.md', body: '# Owned\n', expected_version: 0 },
      },
    });
    const answer = await rawRequest(stack.mcpUrl.href, {
      method: 'POST',
      headers: { ...jsonRpcHeaders(readOnlyToken), 'mcp-protocol-version': '2025-11-25' },
      body,
    });
    assert.equal(answer.status, 403, answer.text);
    const challenge = String(answer.headers['www-authenticate']);
    assert.match(challenge, /error="insufficient_scope"/);
    assert.match(challenge, /scope="mark\.read mark\.write"/);
    assert.match(challenge, /resource_metadata="/);
    // Nothing was written.
    const alice = await stack.connect();
    const fetched = await alice.callTool({ name: 'mark_fetch', arguments: { url: 'mark://team-a/owned.md' } });
    assert.match(resultText(fetched), /not-found/);
  });

  it('lets the same token read, through the SDK client', async () => {
    const client = new Client({ name: 'reader', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(stack.mcpUrl, {
        requestInit: { headers: { Authorization: `Bearer ${readOnlyToken}` } },
      }),
    );
    try {
      const listed = await client.callTool({ name: 'mark_worlds', arguments: {} });
      assert.equal(isError(listed), false, resultText(listed));
      await assert.rejects(
        client.callTool({
          name: 'mark_append',
          arguments: { url: 'mark://team-a/owned.md', body: 'x' },
        }),
        /403|insufficient_scope/,
      );
    } finally {
      await client.close();
    }
  });

  it('refuses a token with no resource scope even for reads', async () => {
    const { trust } = stack.broker;
    const none = await mintBrokerToken({
      key: trust.key,
      issuer: trust.issuer,
      audience: trust.resource,
      email: 'nobody@example.com',
      scope: 'openid',
      ttlSeconds: 600,
    });
    const answer = await rawRequest(stack.mcpUrl.href, {
      method: 'POST',
      headers: { ...jsonRpcHeaders(none), 'mcp-protocol-version': '2025-11-25' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'mark_worlds' } }),
    });
    assert.equal(answer.status, 403);
    assert.match(String(answer.headers['www-authenticate']), /scope="mark\.read"/);
  });
});

describe('security: registered grant types are enforced at every endpoint (real IdP)', () => {
  let signIn: SignInStack;
  before(async () => {
    signIn = await startSignInStack();
  });
  after(async () => signIn?.close());

  async function register(metadata: Record<string, unknown>): Promise<string> {
    const answer = await fetch(`${signIn.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token_endpoint_auth_method: 'none', ...metadata }),
    });
    const text = await answer.text();
    assert.equal(answer.status, 201, text);
    return (JSON.parse(text) as { client_id: string }).client_id;
  }

  it('refuses a device code to an authorization_code-only client', async () => {
    const clientId = await register({
      grant_types: ['authorization_code'],
      redirect_uris: ['http://127.0.0.1:5555/cb'],
    });
    const answer = await signIn.post('/device/authorize', { client_id: clientId });
    assert.equal(answer.status, 400);
    assert.equal(answer.json.error, 'unauthorized_client');
  });

  it('refuses /oauth/authorize to a device-only client, never redirecting with a code', async () => {
    const clientId = await register({ grant_types: ['urn:ietf:params:oauth:grant-type:device_code'] });
    const url = new URL(`${signIn.issuer}/oauth/authorize`);
    url.search = new URLSearchParams({
      client_id: clientId,
      response_type: 'code',
      redirect_uri: 'http://127.0.0.1:5555/cb',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
      code_challenge_method: 'S256',
    }).toString();
    const answer = await fetch(url, { redirect: 'manual' });
    assert.equal(answer.status, 400);
  });

  it('refuses a refresh to a client registered without the refresh_token grant', async () => {
    const clientId = await register({ grant_types: ['authorization_code'], redirect_uris: ['http://127.0.0.1:5/cb'] });
    const answer = await signIn.post('/oauth/token', {
      client_id: clientId,
      grant_type: 'refresh_token',
      refresh_token: 'x',
    });
    assert.equal(answer.status, 400);
    assert.equal(answer.json.error, 'unauthorized_client');
  });
});
