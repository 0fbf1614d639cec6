import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startSignInStack, webClient, type SignInStack } from './signin-fixture.ts';
import { UserAgent, type Page } from './signin-user-agent.ts';

/**
 * The browser pages when the bound of pending sign-ins (`state.maxPendingSignIns`,
 * src/broker/auth/pending-sign-ins.ts) is reached: the person reads what
 * happened and that it passes shortly, with the wait, rather than a page
 * saying the service had a problem. The real broker and development IdP over
 * HTTP, with a bound of one sign-in of each kind (the memory store bounds as
 * Redis does).
 */
describe('sign-in pages at the bound of pending sign-ins', () => {
  let stack: SignInStack;
  before(async () => {
    stack = await startSignInStack({
      brokerConfig: (document) => {
        document.state = { ephemeral: 'memory', maxPendingSignIns: 1 };
      },
    });
  });
  after(() => stack.close());

  const authorizeUrl = (state: string) => {
    const url = new URL('/oauth/authorize', stack.issuer);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: webClient.clientId,
      redirect_uri: webClient.redirectUri,
      code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGjSstw-cM',
      code_challenge_method: 'S256',
      scope: 'openid mark.read',
      state,
      resource: stack.resource,
    }).toString();
    return url.href;
  };

  const assertBoundPage = (page: Page) => {
    assert.equal(page.status, 503, page.html);
    const retryAfter = Number(page.headers.get('retry-after'));
    assert.ok(retryAfter >= 1, `Retry-After ${page.headers.get('retry-after')}`);
    assert.match(page.html, /at its bound of pending sign-ins \(too many were started and not finished\)/);
    assert.match(page.html, new RegExp(`Wait ${retryAfter} seconds?, then start again`));
    assert.doesNotMatch(page.html, /had a problem/);
  };

  it('the authorization endpoint shows the bound, with the wait, once the round trips are at it', async () => {
    const first = new UserAgent();
    first.stopAt = stack.idp.issuer;
    const toIdp = await first.go(authorizeUrl('first'));
    assert.equal(toIdp.url.startsWith(stack.idp.issuer), true, `${toIdp.status}: ${first.trace.join(', ')}`);
    assertBoundPage(await new UserAgent().go(authorizeUrl('second')));
  });

  it('the device confirmation shows the bound too (its IdP round trip is refused)', async () => {
    const { status, json } = await stack.post('/device/authorize', { client_id: 'demarkus-cli', scope: 'mark.read' });
    assert.equal(status, 200, JSON.stringify(json));
    const agent = new UserAgent();
    const form = await agent.go(String(json.verification_uri_complete));
    assert.equal(form.status, 200, form.html);
    assertBoundPage(await agent.submit(form, {}, 'action=approve'));
  });
});
