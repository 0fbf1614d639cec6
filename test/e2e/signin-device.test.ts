import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { DeviceAuthorizationResponse } from '../../src/broker/auth/device/device-endpoints.ts';
import { startSignInStack, type SignInStack } from './signin-fixture.ts';
import { UserAgent } from './signin-user-agent.ts';

const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * RFC 8628 end to end: the CLI side over the token endpoint, the user side
 * through the broker's real verification page and the real development IdP.
 */
describe('device flow for CLI agents (RFC 8628)', () => {
  let stack: SignInStack;
  before(async () => {
    stack = await startSignInStack();
  });
  after(() => stack.close());

  const authorize = async () => {
    const { status, json } = await stack.post('/device/authorize', {
      client_id: 'demarkus-cli',
      scope: 'openid mark.read',
    });
    assert.equal(status, 200, JSON.stringify(json));
    return json as DeviceAuthorizationResponse;
  };
  const poll = (deviceCode: string, clientId = 'demarkus-cli') =>
    stack.post('/oauth/token', { grant_type: deviceGrant, device_code: deviceCode, client_id: clientId });

  /** The person at the browser: opens the complete URI, confirms the prefilled code, signs in. */
  const approveInBrowser = async (verificationUri: string, email: string) => {
    const agent = new UserAgent();
    const form = await agent.go(verificationUri);
    assert.equal(form.status, 200);
    const login = await agent.submit(form, {}, 'action=approve');
    return stack.signInFrom(agent, login, email);
  };

  it('answers the device authorization request as RFC 8628 §3.2 describes', async () => {
    const grant = await authorize();
    assert.match(grant.user_code, /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    assert.equal(grant.verification_uri, `${stack.issuer}/device`);
    assert.equal(grant.verification_uri_complete, `${stack.issuer}/device?user_code=${grant.user_code}`);
    assert.equal(grant.expires_in, 120);
    assert.equal(grant.interval, 0.2);
    assert.ok(grant.device_code.length >= 43, 'device_code has at least 256 bits');
  });

  it('signs a device in: pending while the user is away, tokens once they signed in, then never again', async () => {
    const grant = await authorize();
    const pending = await poll(grant.device_code);
    assert.equal(pending.status, 400);
    assert.equal(pending.json.error, 'authorization_pending');
    const done = await approveInBrowser(grant.verification_uri_complete, 'Alice@Example.com');
    assert.equal(done.status, 200, done.html);
    assert.match(done.html, /Signed in as alice@example\.com/);
    await sleep(250);
    const tokens = await poll(grant.device_code);
    assert.equal(tokens.status, 200, JSON.stringify(tokens.json));
    assert.equal(tokens.headers.get('cache-control'), 'no-store');
    assert.equal(tokens.json.token_type, 'Bearer');
    assert.equal(typeof tokens.json.refresh_token, 'string');
    const jwks = createRemoteJWKSet(new URL(`${stack.issuer}/.well-known/jwks.json`));
    const { payload } = await jwtVerify(tokens.json.access_token as string, jwks, {
      issuer: stack.issuer,
      audience: stack.resource,
      algorithms: ['ES256'],
    });
    assert.equal(payload.email, 'alice@example.com');
    assert.equal(payload.client_id, 'demarkus-cli');
    await sleep(250);
    const again = await poll(grant.device_code);
    assert.equal(again.json.error, 'invalid_grant', 'RFC 8628 §5.2: a device code is used once');
  });

  it('lets the signed-in CLI call the MCP gateway with its access token', async () => {
    const grant = await authorize();
    await approveInBrowser(grant.verification_uri_complete, 'bob@example.com');
    await sleep(250);
    const tokens = await poll(grant.device_code);
    const client = new Client({ name: 'signin-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(stack.resource), {
        requestInit: { headers: { Authorization: `Bearer ${tokens.json.access_token}` } },
      }),
    );
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === 'mark_worlds'));
    await client.close();
  });

  it('answers slow_down when polled faster than the interval, and keeps the interval 5 s longer after', async () => {
    const grant = await authorize();
    assert.equal((await poll(grant.device_code)).json.error, 'authorization_pending');
    const fast = await poll(grant.device_code);
    assert.equal(fast.json.error, 'slow_down');
    await sleep(300);
    // RFC 8628 §3.5: the interval grew by 5 s "for this and all subsequent requests".
    assert.equal((await poll(grant.device_code)).json.error, 'slow_down');
  });

  it('answers access_denied when the user denies the code on the page', async () => {
    const grant = await authorize();
    const agent = new UserAgent();
    const form = await agent.go(grant.verification_uri);
    const denied = await agent.submit(
      form,
      { user_code: grant.user_code.toLowerCase().replace('-', '') },
      'action=deny',
    );
    assert.equal(denied.status, 200);
    assert.match(denied.html, /Request denied/);
    await sleep(250);
    assert.equal((await poll(grant.device_code)).json.error, 'access_denied');
  });

  it('denies the grant when the IdP vouches for an unverified email', async () => {
    const grant = await authorize();
    const done = await approveInBrowser(grant.verification_uri_complete, 'unverified@example.com');
    assert.equal(done.status, 400);
    assert.match(done.html, /email address is not verified/);
    await sleep(250);
    assert.equal((await poll(grant.device_code)).json.error, 'access_denied');
  });

  it('denies the grant when the hosted domain is outside oidc.allowDomains', async () => {
    const grant = await authorize();
    const done = await approveInBrowser(grant.verification_uri_complete, 'mallory@elsewhere.test');
    assert.match(done.html, /domain not permitted/);
    await sleep(250);
    assert.equal((await poll(grant.device_code)).json.error, 'access_denied');
  });

  it('requires client_id in the device authorization request, and refuses an unknown client (RFC 8628 §3.1)', async () => {
    const missing = await stack.post('/device/authorize', {});
    assert.equal(missing.status, 400);
    assert.equal(missing.json.error, 'invalid_request');
    const unknown = await stack.post('/device/authorize', { client_id: 'nobody' });
    assert.equal(unknown.json.error, 'invalid_client');
  });

  it('refuses a poll by another client than the one the code was issued to', async () => {
    const grant = await authorize();
    const other = await poll(grant.device_code, 'some-other-client');
    assert.equal(other.status, 401);
    assert.equal(other.json.error, 'invalid_client');
  });

  it('re-renders the form with an error for an unknown code, without leaving the page', async () => {
    const agent = new UserAgent();
    const form = await agent.go(`${stack.issuer}/device`);
    const wrong = await agent.submit(form, { user_code: 'BBBB-BBBB' }, 'action=approve');
    assert.equal(wrong.status, 400);
    assert.match(wrong.html, /role="alert">Invalid or expired code/);
    assert.match(wrong.html, /value="BBBB-BBBB"/);
  });

  it('refuses a form post without the CSRF token, or from another origin', async () => {
    const grant = await authorize();
    const agent = new UserAgent();
    const form = await agent.go(grant.verification_uri_complete);
    const noToken = await agent.submit(form, { csrf: '' }, 'action=approve');
    assert.equal(noToken.status, 403);
    const form2 = await agent.go(grant.verification_uri_complete);
    const csrf = /name="csrf" value="([^"]+)"/.exec(form2.html)![1]!;
    const crossSite = await agent.go(`${stack.issuer}/device`, {
      method: 'POST',
      form: { csrf, user_code: grant.user_code, action: 'approve' },
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(crossSite.status, 403);
    assert.equal((await poll(grant.device_code)).json.error, 'authorization_pending', 'nothing was approved');
  });

  it('serves the pages with anti-framing and a CSP that admits no script', async () => {
    const response = await fetch(`${stack.issuer}/device`);
    assert.equal(response.headers.get('x-frame-options'), 'DENY');
    assert.match(response.headers.get('content-security-policy') ?? '', /default-src 'none'.*frame-ancestors 'none'/);
    assert.equal(response.headers.get('cache-control'), 'no-store');
    const html = await response.text();
    assert.match(html, /<label for="user_code">/);
    assert.doesNotMatch(html, /<script/);
  });

  it('rate-limits user-code guesses per address (RFC 8628 §5.1)', async () => {
    const agent = new UserAgent();
    let limited = false;
    for (let attempt = 0; attempt < 12 && !limited; attempt++) {
      const form = await agent.go(`${stack.issuer}/device`);
      const answer = await agent.submit(form, { user_code: 'CCCC-CCCC' }, 'action=approve');
      limited = answer.status === 429;
      if (limited) assert.match(answer.html, /Too many attempts/);
    }
    assert.ok(limited, 'guessing is cut off');
  });
});
