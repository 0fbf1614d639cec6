import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSignInStack, type SignInStack } from './signin-fixture.ts';
import { startStack, type Stack } from './stack-fixture.ts';
import { parseBrokerConfig } from '../../src/broker/config/index.ts';

const app = 'https://library.example.org';
const stranger = 'https://evil.example.net';

const preflight = (url: URL, origin: string) =>
  fetch(url, {
    method: 'OPTIONS',
    headers: {
      origin,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'authorization, content-type, mcp-protocol-version',
    },
  });

const initialize = (url: URL, origin: string, token?: string) =>
  fetch(url, {
    method: 'POST',
    headers: {
      origin,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'browser', version: '1' } },
    }),
  });

describe('CORS for browser clients (real broker)', () => {
  describe('with an allowlisted origin', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack({
        worlds: ['root'],
        brokerConfig: { serverExtra: { cors: { allowedOrigins: [app], allowCredentials: true } } },
      });
    });
    after(() => stack.close());

    it('answers the preflight of /mcp before any bearer check', async () => {
      const response = await preflight(stack.mcpUrl, app);
      assert.equal(response.status, 204);
      assert.equal(response.headers.get('access-control-allow-origin'), app);
      assert.equal(response.headers.get('access-control-allow-credentials'), 'true');
      assert.match(response.headers.get('access-control-allow-methods') ?? '', /POST/);
      assert.match(response.headers.get('access-control-allow-headers') ?? '', /authorization/);
      assert.equal(response.headers.get('access-control-max-age'), '600');
    });

    it('lets the page read the answer, the session id and the auth challenge', async () => {
      const challenged = await initialize(stack.mcpUrl, app);
      assert.equal(challenged.status, 401);
      assert.equal(challenged.headers.get('access-control-allow-origin'), app);
      assert.match(challenged.headers.get('access-control-expose-headers') ?? '', /www-authenticate/);
      const opened = await initialize(stack.mcpUrl, app, await stack.token());
      assert.equal(opened.status, 200);
      assert.equal(opened.headers.get('access-control-allow-origin'), app);
      assert.ok(opened.headers.get('mcp-session-id'));
      assert.match(opened.headers.get('access-control-expose-headers') ?? '', /mcp-session-id/);
      const metadata = await fetch(new URL('/.well-known/oauth-protected-resource/mcp', stack.mcpUrl), {
        headers: { origin: app },
      });
      assert.equal(metadata.status, 200);
      assert.equal(metadata.headers.get('access-control-allow-origin'), app);
    });

    it('gives another origin no CORS grant, and the rebinding guard refuses it', async () => {
      const response = await preflight(stack.mcpUrl, stranger);
      assert.equal(response.headers.get('access-control-allow-origin'), null);
      const post = await initialize(stack.mcpUrl, stranger, await stack.token());
      assert.equal(post.status, 403);
      assert.equal(post.headers.get('access-control-allow-origin'), null);
    });
  });

  describe('by default', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack({ worlds: ['root'] });
    });
    after(() => stack.close());

    it('sends no CORS headers at all', async () => {
      const response = await preflight(stack.mcpUrl, app);
      assert.equal(response.headers.get('access-control-allow-origin'), null);
      const post = await initialize(stack.mcpUrl, app, await stack.token());
      assert.equal(post.headers.get('access-control-allow-origin'), null);
    });
  });

  describe('with any origin', () => {
    let stack: Stack;
    before(async () => {
      stack = await startStack({
        worlds: ['root'],
        brokerConfig: { serverExtra: { cors: { allowedOrigins: ['*'] } } },
      });
    });
    after(() => stack.close());

    it('answers * and never allows credentials', async () => {
      const response = await preflight(stack.mcpUrl, stranger);
      assert.equal(response.headers.get('access-control-allow-origin'), '*');
      assert.equal(response.headers.get('access-control-allow-credentials'), null);
      const post = await initialize(stack.mcpUrl, stranger, await stack.token());
      assert.equal(post.status, 200);
    });

    it('refuses a configuration asking for credentials with *', () => {
      const config = (cors: unknown) =>
        `server:\n  addr: 127.0.0.1:0\n  publicURL: http://127.0.0.1:1\n  cors: ${JSON.stringify(cors)}\noidc:\n  brokerSigningKey: x\nworlds: []\n`;
      assert.throws(
        () => parseBrokerConfig(config({ allowedOrigins: ['*'], allowCredentials: true }), {}),
        /allowCredentials: cannot be true when server.cors.allowedOrigins has "\*"/,
      );
    });
  });
});

describe('CORS on the authorization server (real broker with the development IdP)', () => {
  let signIn: SignInStack;
  before(async () => {
    signIn = await startSignInStack();
  });
  after(() => signIn.close());

  it('opens the cookie-less authorization-server routes to any origin, never the sign-in pages', async () => {
    const issuer = signIn.issuer;
    for (const path of ['/.well-known/oauth-authorization-server', '/oauth/token', '/register']) {
      const answer = await preflight(new URL(path, issuer), stranger);
      assert.equal(answer.headers.get('access-control-allow-origin'), '*', path);
      assert.equal(answer.headers.get('access-control-allow-credentials'), null, path);
    }
    const token = await fetch(new URL('/oauth/token', issuer), {
      method: 'POST',
      headers: { origin: stranger, 'content-type': 'application/x-www-form-urlencoded' },
      body: 'grant_type=refresh_token&refresh_token=nothing&client_id=demarkus-cli',
    });
    assert.equal(token.status, 400);
    assert.equal(token.headers.get('access-control-allow-origin'), '*', 'errors are readable too');
    const page = await fetch(new URL('/device', issuer), { headers: { origin: stranger } });
    assert.equal(page.headers.get('access-control-allow-origin'), null);
  });
});

describe("the authorization server's preflights follow server.cors.maxAge (real broker with the development IdP)", () => {
  let signIn: SignInStack;
  before(async () => {
    // 0s, not the default: browsers must cache no preflight, on either listener.
    signIn = await startSignInStack({
      brokerConfig: (document) => {
        document.server.cors = { allowedOrigins: [app], maxAge: '0s' };
      },
    });
  });
  after(() => signIn.close());

  it("answers every preflight, the MCP listener's and the sign-in routes', with the configured max-age", async () => {
    const mcp = await preflight(new URL(signIn.resource), app);
    assert.equal(mcp.headers.get('access-control-allow-origin'), app, signIn.resource);
    assert.equal(mcp.headers.get('access-control-max-age'), '0', signIn.resource);
    for (const path of [
      '/.well-known/oauth-authorization-server',
      '/.well-known/jwks.json',
      '/oauth/token',
      '/register',
    ]) {
      const answer = await preflight(new URL(path, signIn.issuer), stranger);
      assert.equal(answer.status, 204, path);
      assert.equal(answer.headers.get('access-control-max-age'), '0', path);
    }
  });
});
