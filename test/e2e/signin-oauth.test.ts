import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as oidc from 'openid-client';
import { basic, startSignInStack, webClient, type SignInStack } from './signin-fixture.ts';
import { UserAgent } from './signin-user-agent.ts';

const loopbackRedirect = 'http://127.0.0.1:53682/callback';

/**
 * The broker as an OAuth 2.1 authorization server for MCP clients, driven by
 * an independent client library (openid-client) and a browser-like user
 * agent through the real consent and IdP pages.
 */
describe('authorization server for MCP and web clients', () => {
  let stack: SignInStack;
  before(async () => {
    stack = await startSignInStack();
  });
  after(() => stack.close());

  const register = async (metadata: Record<string, unknown>) => {
    const response = await fetch(`${stack.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(metadata),
    });
    return { status: response.status, json: (await response.json()) as Record<string, any>, headers: response.headers };
  };
  const discover = (
    clientId: string,
    auth: oidc.ClientAuth = oidc.None(),
    metadata: Partial<oidc.ClientMetadata> = {},
  ) =>
    oidc.discovery(new URL(stack.issuer), clientId, metadata, auth, {
      execute: [oidc.allowInsecureRequests, oidc.enableNonRepudiationChecks],
    });

  /** Runs the browser part: authorize → (consent) → IdP login → back to the redirect URI. Returns that URL. */
  const browserSignIn = async (
    authorizationUrl: URL,
    redirectUri: string,
    email: string,
    options: { consent?: 'approve' | 'deny' | 'none' } = {},
  ) => {
    const agent = new UserAgent();
    agent.stopAt = redirectUri;
    let page = await agent.go(authorizationUrl.href);
    if ((options.consent ?? 'approve') !== 'none') {
      assert.equal(page.status, 200, page.html);
      assert.match(page.html, /Allow access\?/);
      page = await agent.submit(page, {}, `decision=${options.consent ?? 'approve'}`);
      if (options.consent === 'deny') return page.url;
    }
    const back = await stack.signInFrom(agent, page, email);
    assert.equal(
      back.status,
      0,
      `expected a redirect to the client, got ${back.status}: ${agent.trace.join(', ')} ${back.html.slice(0, 200)}`,
    );
    return back.url;
  };

  const codeFlow = async (
    config: oidc.Configuration,
    redirectUri: string,
    email: string,
    extra: Record<string, string> = {},
    consent: 'approve' | 'none' = 'approve',
  ) => {
    const verifier = oidc.randomPKCECodeVerifier();
    const state = oidc.randomState();
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: redirectUri,
      scope: 'openid mark.read mark.write',
      state,
      code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      resource: stack.resource,
      ...extra,
    });
    const callback = await browserSignIn(url, redirectUri, email, { consent });
    return { callback: new URL(callback), verifier, state };
  };

  /** Signs `email` in through the browser (codeFlow) and redeems the code: the tokens the client then holds. */
  const signedInTokens = async (
    config: oidc.Configuration,
    redirectUri: string,
    email: string,
    consent: 'approve' | 'none' = 'approve',
  ) => {
    const { callback, verifier, state } = await codeFlow(config, redirectUri, email, {}, consent);
    return oidc.authorizationCodeGrant(config, callback, { pkceCodeVerifier: verifier, expectedState: state });
  };

  /** Registers a public client (RFC 7591, no secret) that redirects to loopbackRedirect; returns its registration. */
  const registerPublicClient = async (metadata: Record<string, unknown> = {}) =>
    (await register({ redirect_uris: [loopbackRedirect], token_endpoint_auth_method: 'none', ...metadata })).json;

  /** registerPublicClient, and the client library's configuration for it. */
  const publicClient = async (metadata: Record<string, unknown> = {}) => {
    const registered = await registerPublicClient(metadata);
    const config = await discover(registered.client_id, oidc.None(), { redirect_uris: [loopbackRedirect] });
    return { registered, config };
  };

  /** Presents `refreshToken` at the token endpoint as the client `clientId`, without a secret. */
  const refreshAs = (clientId: string, refreshToken: string) =>
    stack.post('/oauth/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });

  describe('discovery', () => {
    it('serves RFC 8414 metadata whose issuer is the URL it was fetched from, S256 only', async () => {
      const response = await fetch(`${stack.issuer}/.well-known/oauth-authorization-server`);
      assert.equal(response.status, 200);
      assert.match(response.headers.get('content-type') ?? '', /application\/json/);
      const metadata = (await response.json()) as Record<string, any>;
      assert.equal(metadata.issuer, stack.issuer);
      assert.deepEqual(metadata.code_challenge_methods_supported, ['S256']);
      assert.deepEqual(metadata.response_types_supported, ['code']);
      assert.ok(metadata.grant_types_supported.includes('urn:ietf:params:oauth:grant-type:device_code'));
      assert.equal(metadata.device_authorization_endpoint, `${stack.issuer}/device/authorize`);
      assert.equal(metadata.authorization_response_iss_parameter_supported, true);
      assert.equal(metadata.client_id_metadata_document_supported, true);
      assert.ok(!metadata.scopes_supported.includes('offline_access'));
      const oidcDiscovery = await (await fetch(`${stack.issuer}/.well-known/openid-configuration`)).json();
      assert.deepEqual(oidcDiscovery, metadata);
    });

    it('publishes the current and the next signing key in the JWKS', async () => {
      const jwks = (await (await fetch(`${stack.issuer}/.well-known/jwks.json`)).json()) as {
        keys: Array<{ kid: string; alg: string }>;
      };
      assert.equal(jwks.keys.length, 2);
      assert.equal(jwks.keys[0]!.kid, stack.broker.trust.key.kid);
      assert.ok(jwks.keys.every((k) => k.alg === 'ES256'));
    });

    it('points MCP clients from the protected resource to this issuer, and keeps AS metadata off the MCP host', async () => {
      const prm = (await (
        await fetch(`${new URL(stack.resource).origin}/.well-known/oauth-protected-resource/mcp`)
      ).json()) as Record<string, any>;
      assert.equal(prm.resource, stack.resource);
      assert.deepEqual(prm.authorization_servers, [stack.issuer]);
      const unauthenticated = await fetch(stack.resource, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(unauthenticated.status, 401);
      assert.match(
        unauthenticated.headers.get('www-authenticate') ?? '',
        /resource_metadata="[^"]+oauth-protected-resource\/mcp"/,
      );
      assert.equal(
        (await fetch(`${new URL(stack.resource).origin}/.well-known/oauth-authorization-server`)).status,
        404,
      );
    });
  });

  describe('public client registered with RFC 7591', () => {
    it('registers a public client and returns its metadata with 201 and no-store', async () => {
      const { status, json, headers } = await register({
        redirect_uris: [loopbackRedirect],
        token_endpoint_auth_method: 'none',
        client_name: 'Test Agent',
        grant_types: ['authorization_code', 'refresh_token'],
      });
      assert.equal(status, 201);
      assert.equal(headers.get('cache-control'), 'no-store');
      assert.equal(json.client_name, 'Test Agent');
      assert.equal(json.token_endpoint_auth_method, 'none');
      assert.equal(json.client_secret, undefined);
      assert.deepEqual(json.redirect_uris, [loopbackRedirect]);
    });

    it('refuses redirect URIs that are neither https nor loopback, and unknown grant types', async () => {
      assert.equal(
        (await register({ redirect_uris: ['http://attacker.example/cb'], token_endpoint_auth_method: 'none' })).json
          .error,
        'invalid_redirect_uri',
      );
      assert.equal(
        (await register({ redirect_uris: ['https://ok.example/cb#frag'], token_endpoint_auth_method: 'none' })).json
          .error,
        'invalid_redirect_uri',
      );
      assert.equal(
        (await register({ redirect_uris: [loopbackRedirect], grant_types: ['password'] })).json.error,
        'invalid_client_metadata',
      );
    });

    it('runs authorization code + PKCE end to end, with state and iss (RFC 9207) in the response', async () => {
      const { registered, config } = await publicClient({ client_name: 'Agent' });
      const { callback, verifier, state } = await codeFlow(
        config,
        'http://127.0.0.1:41234/callback',
        'carol@example.com',
      );
      assert.equal(callback.searchParams.get('iss'), stack.issuer);
      assert.equal(callback.searchParams.get('state'), state);
      // A loopback redirect matches whatever port the native app picked (RFC 8252 §7.3).
      const tokens = await oidc.authorizationCodeGrant(
        config,
        callback,
        { pkceCodeVerifier: verifier, expectedState: state },
        { redirect_uri: 'http://127.0.0.1:41234/callback' },
      );
      assert.equal(tokens.token_type, 'bearer');
      assert.equal(tokens.claims()?.email, 'carol@example.com');
      assert.equal(tokens.claims()?.aud, registered.client_id);
      assert.ok(tokens.refresh_token);
      const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, tokens.claims()!.sub);
      assert.equal(userinfo.email, 'carol@example.com');
      assert.equal((await fetch(`${stack.issuer}/oauth/userinfo`)).status, 401);
    });

    it('rotates refresh tokens on every use and revokes the family when an old one comes back (RFC 9700)', async () => {
      const { registered, config } = await publicClient({ client_name: 'Agent' });
      const first = await signedInTokens(config, loopbackRedirect, 'dave@example.com');
      const second = await oidc.refreshTokenGrant(config, first.refresh_token!);
      assert.notEqual(second.refresh_token, first.refresh_token);
      assert.ok(second.access_token);
      const replay = await refreshAs(registered.client_id, first.refresh_token!);
      assert.equal(replay.status, 400);
      assert.equal(replay.json.error, 'invalid_grant');
      const afterReuse = await refreshAs(registered.client_id, second.refresh_token!);
      assert.equal(afterReuse.json.error, 'invalid_grant', 'the whole family is revoked');
    });

    it('binds a refresh token to its client', async () => {
      const { config } = await publicClient();
      const b = await registerPublicClient();
      const tokens = await signedInTokens(config, loopbackRedirect, 'erin@example.com');
      const stolen = await refreshAs(b.client_id, tokens.refresh_token!);
      assert.equal(stolen.json.error, 'invalid_grant');
      assert.ok(
        (await oidc.refreshTokenGrant(config, tokens.refresh_token!)).access_token,
        'still valid for its own client',
      );
    });

    it('revokes a refresh token (RFC 7009), answering 200 for unknown tokens too', async () => {
      const { registered, config } = await publicClient();
      const tokens = await signedInTokens(config, loopbackRedirect, 'frank@example.com');
      await oidc.tokenRevocation(config, tokens.refresh_token!);
      const refused = await refreshAs(registered.client_id, tokens.refresh_token!);
      assert.equal(refused.json.error, 'invalid_grant');
      assert.equal(
        (await stack.post('/oauth/revoke', { token: 'no-such-token', client_id: registered.client_id })).status,
        200,
      );
    });

    it('refuses a replayed code and revokes what its first redemption issued', async () => {
      const { registered, config } = await publicClient();
      const { callback, verifier } = await codeFlow(config, loopbackRedirect, 'grace@example.com');
      const form = {
        grant_type: 'authorization_code',
        code: callback.searchParams.get('code')!,
        code_verifier: verifier,
        redirect_uri: loopbackRedirect,
        client_id: registered.client_id,
      };
      const first = await stack.post('/oauth/token', form);
      assert.equal(first.status, 200);
      assert.equal(first.headers.get('cache-control'), 'no-store', 'RFC 6749 §5.1');
      const replay = await stack.post('/oauth/token', form);
      assert.equal(replay.json.error, 'invalid_grant');
      const refresh = await refreshAs(registered.client_id, first.json.refresh_token as string);
      assert.equal(
        refresh.json.error,
        'invalid_grant',
        'RFC 6749 §4.1.2: tokens issued from a replayed code are revoked',
      );
    });

    it('refuses a wrong code_verifier and a wrong redirect_uri at the token endpoint', async () => {
      const { registered, config } = await publicClient();
      const one = await codeFlow(config, loopbackRedirect, 'heidi@example.com');
      const wrongVerifier = await stack.post('/oauth/token', {
        grant_type: 'authorization_code',
        code: one.callback.searchParams.get('code')!,
        code_verifier: oidc.randomPKCECodeVerifier(),
        redirect_uri: loopbackRedirect,
        client_id: registered.client_id,
      });
      assert.equal(wrongVerifier.json.error, 'invalid_grant');
      const two = await codeFlow(config, loopbackRedirect, 'heidi@example.com');
      const wrongRedirect = await stack.post('/oauth/token', {
        grant_type: 'authorization_code',
        code: two.callback.searchParams.get('code')!,
        code_verifier: two.verifier,
        redirect_uri: 'http://127.0.0.1:53682/other',
        client_id: registered.client_id,
      });
      assert.equal(wrongRedirect.json.error, 'invalid_grant');
    });

    it('shows an error page instead of redirecting to an unregistered redirect URI', async () => {
      const registered = await registerPublicClient();
      const url = new URL(`${stack.issuer}/oauth/authorize`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: registered.client_id,
        redirect_uri: 'https://attacker.example/cb',
        code_challenge: 'x'.repeat(43),
        code_challenge_method: 'S256',
      }).toString();
      const response = await fetch(url, { redirect: 'manual' });
      assert.equal(response.status, 400);
      assert.equal(response.headers.get('location'), null);
      assert.match(await response.text(), /redirect_uri is not registered/);
      const unknown = await fetch(
        `${stack.issuer}/oauth/authorize?response_type=code&client_id=nobody&redirect_uri=${encodeURIComponent(loopbackRedirect)}`,
        { redirect: 'manual' },
      );
      assert.equal(unknown.status, 400);
    });

    it('redirects PKCE errors to the client: plain is refused, a missing challenge too', async () => {
      const registered = await registerPublicClient();
      for (const [params, description] of [
        [{ code_challenge: 'a'.repeat(43), code_challenge_method: 'plain' }, /S256/],
        [{}, /code_challenge is required/],
      ] as const) {
        const url = new URL(`${stack.issuer}/oauth/authorize`);
        url.search = new URLSearchParams({
          response_type: 'code',
          client_id: registered.client_id,
          redirect_uri: loopbackRedirect,
          state: 'st',
          ...params,
        }).toString();
        const response = await fetch(url, { redirect: 'manual' });
        assert.equal(response.status, 303);
        const location = new URL(response.headers.get('location')!);
        assert.equal(location.origin + location.pathname, loopbackRedirect);
        assert.equal(location.searchParams.get('error'), 'invalid_request');
        assert.match(location.searchParams.get('error_description')!, description);
        assert.equal(location.searchParams.get('state'), 'st');
        assert.equal(location.searchParams.get('iss'), stack.issuer);
      }
    });

    it('refuses a resource other than the MCP resource with invalid_target (RFC 8707)', async () => {
      const registered = await registerPublicClient();
      const url = new URL(`${stack.issuer}/oauth/authorize`);
      url.search = new URLSearchParams({
        response_type: 'code',
        client_id: registered.client_id,
        redirect_uri: loopbackRedirect,
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
        resource: 'https://other.example/mcp',
      }).toString();
      const location = new URL((await fetch(url, { redirect: 'manual' })).headers.get('location')!);
      assert.equal(location.searchParams.get('error'), 'invalid_target');
    });

    it('sends access_denied back when the user refuses consent', async () => {
      const { config } = await publicClient({ client_name: 'Nosy App' });
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: loopbackRedirect,
        state: 's1',
        code_challenge: 'a'.repeat(43),
        code_challenge_method: 'S256',
      });
      const back = new URL(await browserSignIn(url, loopbackRedirect, 'ivan@example.com', { consent: 'deny' }));
      assert.equal(back.searchParams.get('error'), 'access_denied');
      assert.equal(back.searchParams.get('state'), 's1');
    });

    it('sends access_denied back for an unverified email or a domain outside the allowlist', async () => {
      const { config } = await publicClient();
      for (const [email, description] of [
        ['unverified@example.com', /not verified/],
        ['judy@elsewhere.test', /domain not permitted/],
      ] as const) {
        const { callback } = await codeFlow(config, loopbackRedirect, email);
        assert.equal(callback.searchParams.get('error'), 'access_denied');
        assert.match(callback.searchParams.get('error_description')!, description);
        assert.equal(callback.searchParams.get('code'), null);
      }
    });
  });

  describe('confidential web client from config', () => {
    const webConfig = (auth: oidc.ClientAuth) =>
      discover(webClient.clientId, auth, { redirect_uris: [webClient.redirectUri] });

    it('signs in without a consent page and redeems the code with client_secret_basic', async () => {
      const config = await webConfig(oidc.ClientSecretBasic(webClient.secret));
      const tokens = await signedInTokens(config, webClient.redirectUri, 'kim@example.com', 'none');
      assert.equal(tokens.claims()?.email, 'kim@example.com');
      const refreshed = await oidc.refreshTokenGrant(config, tokens.refresh_token!);
      assert.ok(refreshed.access_token);
    });

    it('accepts client_secret_post too, and its refresh tokens only with its secret', async () => {
      const config = await webConfig(oidc.ClientSecretPost(webClient.secret));
      const tokens = await signedInTokens(config, webClient.redirectUri, 'lee@example.com', 'none');
      const withoutSecret = await refreshAs(webClient.clientId, tokens.refresh_token!);
      assert.equal(withoutSecret.status, 401);
      assert.equal(withoutSecret.json.error, 'invalid_client');
      const wrongSecret = await stack.post(
        '/oauth/token',
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
        { authorization: basic(webClient.clientId, 'not-the-secret') },
      );
      assert.equal(wrongSecret.status, 401);
      assert.match(wrongSecret.headers.get('www-authenticate') ?? '', /^Basic /);
      const right = await stack.post(
        '/oauth/token',
        { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
        { authorization: basic(webClient.clientId, webClient.secret) },
      );
      assert.equal(right.status, 200);
    });

    it('refuses a code redemption with a wrong client secret, and a redirect URI that is not exactly registered', async () => {
      const config = await webConfig(oidc.ClientSecretBasic(webClient.secret));
      const { callback, verifier } = await codeFlow(config, webClient.redirectUri, 'mo@example.com', {}, 'none');
      const wrong = await stack.post(
        '/oauth/token',
        {
          grant_type: 'authorization_code',
          code: callback.searchParams.get('code')!,
          code_verifier: verifier,
          redirect_uri: webClient.redirectUri,
        },
        { authorization: basic(webClient.clientId, 'guess') },
      );
      assert.equal(wrong.json.error, 'invalid_client');
      const response = await fetch(
        `${stack.issuer}/oauth/authorize?response_type=code&client_id=${webClient.clientId}&redirect_uri=${encodeURIComponent(`${webClient.redirectUri}/`)}`,
        { redirect: 'manual' },
      );
      assert.equal(response.status, 400);
    });
  });

  describe('Client ID Metadata Documents', () => {
    let documents: Server;
    let base: string;
    const bodies = new Map<string, unknown>();
    before(async () => {
      documents = createServer((request, response) => {
        const body = bodies.get(request.url ?? '');
        if (body === undefined) return void response.writeHead(404).end();
        response
          .writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' })
          .end(JSON.stringify(body));
      });
      await new Promise<void>((resolve) => documents.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(documents.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => documents.close(() => resolve())));

    it('signs in a client named by the URL of its metadata document, showing its name and redirect host', async () => {
      const clientId = `${base}/agent.json`;
      bodies.set('/agent.json', {
        client_id: clientId,
        client_name: 'Metadata Agent',
        redirect_uris: [loopbackRedirect],
        token_endpoint_auth_method: 'none',
      });
      const config = await discover(clientId, oidc.None(), { redirect_uris: [loopbackRedirect] });
      const verifier = oidc.randomPKCECodeVerifier();
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: loopbackRedirect,
        state: 'cimd',
        code_challenge: await oidc.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
      });
      const agent = new UserAgent();
      agent.stopAt = loopbackRedirect;
      const consent = await agent.go(url.href);
      assert.match(consent.html, /<strong>Metadata Agent<\/strong>/);
      assert.match(consent.html, /127\.0\.0\.1:53682/);
      const login = await agent.submit(consent, {}, 'decision=approve');
      const back = await stack.signInFrom(agent, login, 'nina@example.com');
      const tokens = await oidc.authorizationCodeGrant(config, new URL(back.url), {
        pkceCodeVerifier: verifier,
        expectedState: 'cimd',
      });
      assert.ok(tokens.access_token);
    });

    it('refuses a document whose client_id is not the URL it was fetched from', async () => {
      bodies.set('/liar.json', {
        client_id: `${base}/someone-else.json`,
        client_name: 'Liar',
        redirect_uris: [loopbackRedirect],
      });
      const response = await fetch(
        `${stack.issuer}/oauth/authorize?response_type=code&client_id=${encodeURIComponent(`${base}/liar.json`)}&redirect_uri=${encodeURIComponent(loopbackRedirect)}`,
        { redirect: 'manual' },
      );
      assert.equal(response.status, 400);
      assert.match(await response.text(), /different client_id/);
    });

    it('refuses a redirect URI that the document does not list', async () => {
      const clientId = `${base}/strict.json`;
      bodies.set('/strict.json', {
        client_id: clientId,
        client_name: 'Strict',
        redirect_uris: ['https://app.example/cb'],
      });
      const response = await fetch(
        `${stack.issuer}/oauth/authorize?response_type=code&client_id=${encodeURIComponent(clientId)}&redirect_uri=${encodeURIComponent('https://evil.example/cb')}`,
        { redirect: 'manual' },
      );
      assert.equal(response.status, 400);
    });
  });
});
