import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { OAuthError } from '../../../src/broker/auth/oauth-error.ts';
import { signInIdentityFromClaims, type SignInRefused } from '../../../src/broker/auth/sign-in-identity.ts';
import { tokenEndpoint } from '../../../src/broker/auth/token-endpoint.ts';
import { createIssuerApp } from '../../../src/broker/http/issuer-listener.ts';
import { createBrokerMetrics } from '../../../src/broker/http/metrics.ts';
import { signInRoutes } from '../../../src/broker/http/signin/index.ts';
import { defaultDocumentLocation, SecretStateStore } from '../../../src/broker/kubernetes/index.ts';
import type { StateDocumentStore } from '../../../src/broker/state/index.ts';
import { startFakeApiServer, type FakeApiServer } from '../../kubernetes/fake-api/server.ts';
import { apis } from '../../kubernetes/helpers.ts';
import { testSignInContext, unreachableUpstream } from './sign-in-context.ts';

const context = (allowDomains: string[], durable?: StateDocumentStore) => testSignInContext({ allowDomains, durable });

describe('refresh_token grant and oidc.allowDomains', () => {
  it('refuses a refresh once the hosted domain left the allowlist, and revokes the family', async () => {
    const open = await context(['example.com']);
    const identity = { subject: 's', email: 'a@example.com', groups: [], hostedDomain: 'example.com' };
    const { token } = await open.refreshTokens.issue({
      clientId: 'demarkus-cli',
      identity,
      scope: 'mark.read',
      resource: open.resource,
    });
    const narrowed = { ...open, allowDomains: ['other.example'] };
    await assert.rejects(
      tokenEndpoint(narrowed, undefined, {
        grant_type: 'refresh_token',
        refresh_token: token,
        client_id: 'demarkus-cli',
      }),
      (error: OAuthError) => error.error === 'invalid_grant' && /domain/.test(error.description),
    );
    assert.equal(await open.refreshTokens.familyCount(), 0);
  });

  it('refreshes while the domain is allowed, and answers unsupported_grant_type for other grants', async () => {
    const ctx = await context(['example.com']);
    const identity = { subject: 's', email: 'a@example.com', groups: [], hostedDomain: 'example.com' };
    const { token } = await ctx.refreshTokens.issue({
      clientId: 'demarkus-cli',
      identity,
      scope: 'mark.read',
      resource: ctx.resource,
    });
    const response = await tokenEndpoint(ctx, undefined, {
      grant_type: 'refresh_token',
      refresh_token: token,
      client_id: 'demarkus-cli',
    });
    assert.notEqual(response.refresh_token, token);
    await assert.rejects(
      tokenEndpoint(ctx, undefined, { grant_type: 'password', client_id: 'demarkus-cli' }),
      (error: OAuthError) => error.error === 'unsupported_grant_type',
    );
    await assert.rejects(
      tokenEndpoint(ctx, undefined, { client_id: 'demarkus-cli' }),
      (error: OAuthError) => error.error === 'invalid_request',
    );
  });
});

describe('the token endpoint when the refresh-token Secret cannot be written (real Secret store, fake API server)', () => {
  const refreshSecret = 'demarkus-broker-refresh-tokens';
  let server: FakeApiServer;
  before(async () => {
    server = await startFakeApiServer();
  });
  after(async () => server?.close());

  /** The real sign-in routes over HTTP (fastify's inject) with Secret-backed state, and a refresh token to use. */
  async function refreshing() {
    const durable = new SecretStateStore({
      core: apis(server).core,
      namespace: 'demarkus',
      locate: defaultDocumentLocation(refreshSecret),
    });
    const ctx = await context([], durable);
    const rateLimit = { perMinute: 60, burst: 10 };
    const app = await createIssuerApp({
      metrics: createBrokerMetrics({ collectDefaults: false }),
      plugins: [
        signInRoutes({
          context: ctx,
          cookieKey: Buffer.alloc(32, 1),
          insecureCookies: true,
          roundTripTtlSeconds: 300,
          preflightMaxAgeMs: 600_000,
          rateLimit: {
            disabled: true,
            login: rateLimit,
            userCode: rateLimit,
            registration: rateLimit,
            trustForwardedFor: false,
          },
        }),
      ],
    });
    const identity = { subject: 's', email: 'a@example.com', groups: [] };
    const { token } = await ctx.refreshTokens.issue({
      clientId: 'demarkus-cli',
      identity,
      scope: 'mark.read',
      resource: ctx.resource,
    });
    const refresh = () =>
      app.inject({
        method: 'POST',
        url: '/oauth/token',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: new URLSearchParams({
          grant_type: 'refresh_token',
          refresh_token: token,
          client_id: 'demarkus-cli',
        }).toString(),
      });
    return { app, refresh };
  }
  const onRefreshSecret = (verb: string) => (request: { verb: string; name: string | null }) =>
    request.verb === verb && request.name === refreshSecret;

  it('answers a write conflict that outlasted its retries 503 temporarily_unavailable with Retry-After, and the retry works', async () => {
    const { app, refresh } = await refreshing();
    try {
      server.fail(onRefreshSecret('update'), 409, 5);
      const conflicted = await refresh();
      assert.equal(conflicted.statusCode, 503, conflicted.body);
      assert.equal(conflicted.json().error, 'temporarily_unavailable');
      assert.match(conflicted.json().error_description, /at the same moment.*try again in a few seconds/);
      assert.ok(Number(conflicted.headers['retry-after']) >= 1, `Retry-After ${conflicted.headers['retry-after']}`);
      const retried = await refresh();
      assert.equal(retried.statusCode, 200, retried.body);
    } finally {
      await app.close();
    }
  });

  it('answers an API server that fails (5xx) the same way, and keeps a refusal no retry mends (403) a 500', async () => {
    const { app, refresh } = await refreshing();
    try {
      server.fail(onRefreshSecret('get'), 503, 1);
      const unavailable = await refresh();
      assert.equal(unavailable.statusCode, 503, unavailable.body);
      assert.equal(unavailable.json().error, 'temporarily_unavailable');
      assert.match(unavailable.json().error_description, /could not reach its durable state.*try again/);
      assert.ok(Number(unavailable.headers['retry-after']) >= 1);
      server.fail(onRefreshSecret('get'), 403, 1);
      const refused = await refresh();
      assert.equal(refused.statusCode, 500, refused.body);
      assert.deepEqual(refused.json(), { error: 'server_error', error_description: 'internal error' });
      assert.equal(refused.headers['retry-after'], undefined);
    } finally {
      await app.close();
    }
  });
});

describe('sign-in identity from upstream claims', () => {
  const claims = { sub: 'x', email: ' Bob@Example.COM ', email_verified: true, hd: 'Example.com', groups: ['devs', 3] };

  it('is the lower-cased verified email, with groups and hd', () => {
    assert.deepEqual(signInIdentityFromClaims(claims, ['example.com']), {
      subject: 'x',
      email: 'bob@example.com',
      groups: ['devs'],
      hostedDomain: 'example.com',
    });
    assert.equal(
      signInIdentityFromClaims({ ...claims, hd: undefined }, []).hostedDomain,
      undefined,
      'an empty allowlist is open',
    );
  });

  it('refuses an unverified email, a missing email, and a domain outside the list (or no hd at all)', () => {
    const reason = (input: Record<string, unknown>, allow: string[]) => {
      try {
        signInIdentityFromClaims(input, allow);
        return 'accepted';
      } catch (error) {
        return (error as SignInRefused).reason;
      }
    };
    assert.equal(reason({ ...claims, email_verified: false }, []), 'email_unverified');
    assert.equal(reason({ ...claims, email: '' }, []), 'email_missing');
    assert.equal(reason({ ...claims, sub: undefined }, []), 'subject_missing');
    assert.equal(reason(claims, ['other.example']), 'domain_not_permitted');
    assert.equal(reason({ ...claims, hd: undefined }, ['example.com']), 'domain_not_permitted');
  });
});

describe('the IdP callback of a device sign-in', () => {
  it('leaves the grant pending when the IdP fails transiently, and denies it when the IdP refuses', async () => {
    const { UpstreamSignInError } = await import('../../../src/broker/auth/upstream/upstream-idp.ts');
    const { callbackEndpoint } = await import('../../../src/broker/auth/authorize/authorize-endpoints.ts');
    const { deviceSubmit } = await import('../../../src/broker/auth/device/device-endpoints.ts');
    let failure: 'failed' | 'denied' = 'failed';
    const ctx = await context([]);
    const flaky = {
      ...ctx,
      upstream: {
        ...unreachableUpstream,
        finish: async () => Promise.reject(new UpstreamSignInError(failure, 'upstream sign-in')),
      },
    };
    const { userCode, deviceCode } = await ctx.devices.start({
      clientId: 'demarkus-cli',
      scope: 'mark.read',
      resource: ctx.resource,
    });
    // Until the page has named the program, approving only asks the person to confirm (RFC 8628 §5.4).
    const unconfirmed = await deviceSubmit(flaky, userCode, 'approve', false);
    assert.equal(unconfirmed.kind, 'confirm');
    const first = await deviceSubmit(flaky, userCode, 'approve', true);
    assert.equal(first.kind, 'upstream');
    const callback = (state: string) => new URL(`http://127.0.0.1:1/auth/callback?code=c&state=${state}`);
    const step = await callbackEndpoint(
      flaky,
      callback((first as { state: string }).state),
      (first as { state: string }).state,
    );
    assert.deepEqual([step.kind, (step as { outcome?: string }).outcome], ['device-done', 'failed']);
    assert.equal((await ctx.devices.poll(deviceCode, 'demarkus-cli')).kind, 'authorization_pending');
    failure = 'denied';
    const again = (await deviceSubmit(flaky, userCode, 'approve', true)) as { state: string };
    await callbackEndpoint(flaky, callback(again.state), again.state);
    assert.equal(await ctx.devices.findPending(userCode), null);
  });

  it('refuses a callback whose state is not bound to this browser (login CSRF)', async () => {
    const { callbackEndpoint } = await import('../../../src/broker/auth/authorize/authorize-endpoints.ts');
    const ctx = await context([]);
    const step = await callbackEndpoint(ctx, new URL('http://127.0.0.1:1/auth/callback?code=c&state=abc'), 'xyz');
    assert.equal(step.kind, 'page-error');
    assert.match((step as { title: string }).title, /started elsewhere/);
  });
});
