import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { DeviceAuthorizationResponse } from '../../src/broker/auth/device/device-endpoints.ts';
import { startSignInStack, webClient, type SignInStack } from './signin-fixture.ts';
import { UserAgent } from './signin-user-agent.ts';

const wrongSecret = 'not-the-broker-secret-at-the-idp';

/**
 * A sign-in that fails between the broker and the real development IdP
 * (oidc-provider) tells the user and the client only that it failed; the
 * operator gets a warn line saying why, without the code, state, tokens or
 * cookies, and `broker_signin_failures_total` moves.
 */
describe('upstream sign-in failures in the log and the metrics', () => {
  let stack: SignInStack;
  const logLines: string[] = [];
  before(async () => {
    stack = await startSignInStack({
      logLines,
      brokerConfig: (document) => {
        document.oidc.clientSecret = wrongSecret;
      },
    });
  });
  after(() => stack.close());

  const authorizeUrl = () =>
    `${stack.issuer}/oauth/authorize?${new URLSearchParams({
      response_type: 'code',
      client_id: webClient.clientId,
      redirect_uri: webClient.redirectUri,
      scope: 'mark.read',
      state: 'client-state-value',
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGcHu5Ljfk',
      code_challenge_method: 'S256',
      resource: stack.resource,
    })}`;

  const failures = async (kind: string) =>
    Number(
      new RegExp(`^broker_signin_failures_total\\{kind="${kind}"\\} (\\d+)$`, 'm').exec(
        await stack.broker.metrics.registry.metrics(),
      )?.[1],
    );

  /** Log lines written since `from`, parsed, of the sign-in failures. */
  const failureLines = (from: number) =>
    logLines
      .slice(from)
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((line) => line.msg === 'upstream sign-in failed');

  it('logs why the code exchange failed (a wrong client secret at the IdP) and counts it, and the client gets server_error', async () => {
    assert.equal(await failures('failed'), 0, 'the series exists before the first failure');
    const from = logLines.length;
    const agent = new UserAgent();
    agent.stopAt = webClient.redirectUri;
    const idpPage = await agent.go(authorizeUrl());
    const back = await stack.signInFrom(agent, idpPage, 'kim@example.com');
    assert.equal(back.status, 0, agent.trace.join(', '));
    const redirect = new URL(back.url);
    assert.equal(redirect.searchParams.get('error'), 'server_error');
    assert.equal(redirect.searchParams.get('error_description'), 'identity provider sign-in failed');

    const lines = failureLines(from);
    assert.equal(lines.length, 1, logLines.slice(from).join('\n'));
    const [line] = lines;
    assert.equal(line!.level, 40);
    assert.equal(line!.kind, 'failed');
    assert.match(String(line!.detail), /^upstream sign-in failed: invalid_client/);
    const callback = agent.visited.map((url) => new URL(url)).find((url) => url.pathname === '/auth/callback');
    assert.ok(callback !== undefined, agent.trace.join(', '));
    const code = callback.searchParams.get('code') ?? '';
    const state = callback.searchParams.get('state') ?? '';
    assert.ok(code.length > 10 && state.length > 10, callback.href);
    // The IdP's authorization code, the round trip's state (the value of its cookie too) and the broker's secret at the IdP appear in no line.
    const written = logLines.slice(from).join('\n');
    for (const secret of [code, state, wrongSecret]) assert.ok(!written.includes(secret), `the log holds ${secret}`);
    assert.equal(await failures('failed'), 1);
    assert.equal(await failures('denied'), 0);
  });

  it('logs and counts a failure of the device flow too: the page says to enter the code again, the device stays pending', async () => {
    const counted = await failures('failed');
    const from = logLines.length;
    const authorized = await stack.post('/device/authorize', { client_id: 'demarkus-cli', scope: 'openid mark.read' });
    assert.equal(authorized.status, 200, JSON.stringify(authorized.json));
    const grant = authorized.json as DeviceAuthorizationResponse;
    const agent = new UserAgent();
    const form = await agent.go(grant.verification_uri_complete);
    const login = await agent.submit(form, {}, 'action=approve');
    const done = await stack.signInFrom(agent, login, 'kim@example.com');
    assert.equal(done.status, 400, done.html);
    assert.match(done.html, /Sign-in not completed/);
    assert.match(done.html, /Sign-in could not be completed\. Enter the code again to retry\./);
    assert.doesNotMatch(done.html, /invalid_client/, 'the person is told only that it failed');

    const [line, ...more] = failureLines(from);
    assert.equal(more.length, 0, logLines.slice(from).join('\n'));
    assert.equal(line!.kind, 'failed');
    assert.match(String(line!.detail), /^upstream sign-in failed: invalid_client/);
    const written = logLines.slice(from).join('\n');
    for (const secret of [grant.device_code, grant.user_code, wrongSecret])
      assert.ok(!written.includes(secret), `the log holds ${secret}`);
    assert.equal(await failures('failed'), counted + 1);

    const poll = await stack.post('/oauth/token', {
      grant_type: 'urn:ietf:params:oauth:grant-type:device_code',
      device_code: grant.device_code,
      client_id: 'demarkus-cli',
    });
    assert.equal(
      poll.json.error,
      'authorization_pending',
      'a failed sign-in neither signs the device in nor refuses it',
    );
  });

  it('logs an IdP error description bounded and without control characters, counted as denied', async () => {
    const from = logLines.length;
    const agent = new UserAgent();
    agent.stopAt = webClient.redirectUri;
    const idpPage = await agent.go(authorizeUrl());
    // Whoever sends the browser back chooses error_description: here a forged log line and a flood.
    assert.match(idpPage.url, /^http:\/\/127\.0\.0\.1:\d+\//);
    const idpOrigin = new URL(stack.idp.issuer).origin;
    const toIdp = agent.visited.map((url) => new URL(url)).find((url) => url.origin === idpOrigin);
    const state = toIdp?.searchParams.get('state') ?? '';
    assert.ok(state.length > 10, agent.visited.join(', '));
    const forged = `nope\r\n{"level":30,"msg":"all good"}\u0000${'x'.repeat(5000)}`;
    const back = await agent.go(
      `${stack.issuer}/auth/callback?${new URLSearchParams({ error: 'access_denied', error_description: forged, state, iss: stack.idp.issuer })}`,
    );
    assert.equal(new URL(back.url).searchParams.get('error'), 'access_denied');
    const [line, ...more] = failureLines(from);
    assert.equal(more.length, 0);
    assert.equal(line!.kind, 'denied');
    const detail = String(line!.detail);
    assert.match(detail, /^upstream sign-in denied: access_denied: nope \{"level":30,"msg":"all good"\} x+\.\.\.$/);
    assert.ok(detail.length < 400, `detail of ${detail.length} characters`);
    assert.doesNotMatch(detail, /[\u0000-\u001f]/);
    assert.equal(await failures('denied'), 1);
  });
});
