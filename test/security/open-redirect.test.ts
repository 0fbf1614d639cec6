/**
 * Threat: the authorization endpoint as an open redirector (RFC 9700
 * §4.11.2). Registration is anonymous (RFC 7591), so anyone may register a
 * client whose one redirect URI is a phishing page, then send a person a link
 * to `/oauth/authorize` with that client and a request that is wrong on
 * purpose (`response_type=token`, no PKCE challenge, a foreign `resource`).
 * The link names the broker's own host, so it looks safe to follow.
 *
 * The attack succeeded before the fix (checked by running this file against
 * it): once redirect_uri matched the client's registration, every later error
 * was answered 303 to `https://evil.example/phish?error=...`, at once, with
 * no consent page and nothing shown by the broker. RFC 9700 §4.11.2: redirect
 * automatically only to trusted addresses. Now only a client the operator
 * configured, or a redirect that cannot reach a remote site (loopback, a
 * private-use scheme), gets its errors redirected; any other shows the error
 * page, which names where the application wanted to send the person.
 *
 * The real broker and its real registration and authorization endpoints.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSignInStack, webClient, type SignInStack } from '../e2e/signin-fixture.ts';

const phishingPage = 'https://evil.example/phish';
const challenge = 'a'.repeat(43);

describe('security: authorization errors are not redirected to an address anyone registered', () => {
  let stack: SignInStack;
  before(async () => {
    stack = await startSignInStack();
  });
  after(() => stack.close());

  const register = async (redirectUri: string): Promise<string> => {
    const response = await fetch(`${stack.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ redirect_uris: [redirectUri], token_endpoint_auth_method: 'none', client_name: 'x' }),
    });
    assert.equal(response.status, 201);
    return ((await response.json()) as { client_id: string }).client_id;
  };
  const authorize = (params: Record<string, string>) =>
    fetch(`${stack.issuer}/oauth/authorize?${new URLSearchParams(params)}`, { redirect: 'manual' });

  const wrongRequests: Record<string, Record<string, string>> = {
    'an unsupported response_type': { response_type: 'token' },
    'a missing PKCE challenge': { response_type: 'code' },
    'a plain PKCE challenge': { response_type: 'code', code_challenge: challenge, code_challenge_method: 'plain' },
    'a foreign resource': {
      response_type: 'code',
      code_challenge: challenge,
      code_challenge_method: 'S256',
      resource: 'https://other.example/mcp',
    },
  };

  for (const [name, params] of Object.entries(wrongRequests))
    it(`shows a page, not a redirect to a registered https address, for ${name}`, async () => {
      const clientId = await register(phishingPage);
      for (const redirect of [{ redirect_uri: phishingPage }, {}] as Record<string, string>[]) {
        const response = await authorize({ client_id: clientId, state: 'st', ...redirect, ...params });
        const body = await response.text();
        assert.equal(response.status, 400, `answered ${response.status} to ${response.headers.get('location')}`);
        assert.equal(response.headers.get('location'), null);
        assert.match(body, /It wanted to send you on to evil\.example, an address this service has not checked/);
        assert.match(body, /What the sign-in service saw: <code>/);
      }
    });

  it('still redirects the errors of a client the operator configured', async () => {
    const response = await authorize({
      client_id: webClient.clientId,
      redirect_uri: webClient.redirectUri,
      response_type: 'token',
      state: 'st',
    });
    assert.equal(response.status, 303);
    const location = new URL(response.headers.get('location')!);
    assert.equal(location.origin + location.pathname, webClient.redirectUri);
    assert.equal(location.searchParams.get('error'), 'unsupported_response_type');
    assert.equal(location.searchParams.get('state'), 'st');
  });

  it('still redirects the errors of a registered private-use scheme redirect, which reaches no remote site', async () => {
    const appRedirect = 'com.example.app:/oauth/callback';
    const response = await authorize({
      client_id: await register(appRedirect),
      redirect_uri: appRedirect,
      response_type: 'code',
      state: 'st',
    });
    assert.equal(response.status, 303);
    const location = new URL(response.headers.get('location')!);
    assert.equal(location.protocol + location.pathname, appRedirect);
    assert.equal(location.searchParams.get('error'), 'invalid_request');
  });
});
