/**
 * Threat: login CSRF through a planted round-trip cookie (a confused deputy:
 * MCP security best practices; OAuth 2.1 §7.12, RFC 6265bis §4.1.3). The
 * IdP callback finishes whichever authorization request the browser's
 * round-trip cookie names. That cookie was `__Secure-demarkus_signin`
 * (Path=/auth/callback), and a `__Secure-` cookie may carry a Domain: a
 * sibling host (`evil.example.com` beside `broker.example.com`) can set it
 * for the whole domain in the victim's browser. The attacker starts its own
 * authorization request, plants that request's state in the victim's browser,
 * and sends the victim to the IdP: the victim's sign-in then completes the
 * attacker's request, and the code, for the victim's identity, goes to the
 * attacker's redirect URI.
 *
 * The attack succeeded before the fix (checked by running this file against
 * it): the callback with the victim's IdP answer and a planted
 * `__Secure-demarkus_signin` cookie was answered 303 with a code to the
 * attacker's redirect URI. Now the cookie is `__Host-demarkus_signin`
 * (Path=/, Secure, no Domain), which only the broker's own host can set, and
 * no other name is read.
 *
 * The real broker with secure cookies (its https setting, over loopback
 * http), the real development IdP, and the test user agent as the victim's
 * browser.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSignInStack, webClient, type SignInStack } from '../e2e/signin-fixture.ts';
import { UserAgent } from '../e2e/signin-user-agent.ts';

describe("security: the IdP callback is bound to the browser by a cookie only the broker's host can set", () => {
  let stack: SignInStack;
  before(async () => {
    stack = await startSignInStack({
      brokerConfig: (document) => {
        document.server.insecureCookies = false;
      },
    });
  });
  after(() => stack.close());

  /** The attacker's own authorization request: where it sends a browser, and the cookie it is given. */
  const attackerRequest = async () => {
    const params = new URLSearchParams({
      client_id: webClient.clientId,
      redirect_uri: webClient.redirectUri,
      response_type: 'code',
      code_challenge: 'a'.repeat(43),
      code_challenge_method: 'S256',
      state: 'attacker',
    });
    const response = await fetch(`${stack.issuer}/oauth/authorize?${params}`, { redirect: 'manual' });
    assert.equal(response.status, 303);
    const idpUrl = response.headers.get('location')!;
    assert.ok(idpUrl.startsWith(stack.idp.issuer), idpUrl);
    return { idpUrl, setCookie: response.headers.getSetCookie(), state: new URL(idpUrl).searchParams.get('state')! };
  };

  /** The victim signs in at the IdP from the attacker's link; their browser stops before the broker's callback. */
  const victimCallback = async (idpUrl: string): Promise<string> => {
    const victim = new UserAgent();
    victim.stopAt = `${stack.issuer}/auth/callback`;
    const back = await stack.signInFrom(victim, await victim.go(idpUrl), 'victim@example.com');
    assert.equal(back.status, 0, `expected the way back to the broker: ${victim.trace.join(', ')}`);
    return back.url;
  };
  const callback = (url: string, cookie: string) => fetch(url, { headers: { cookie }, redirect: 'manual' });

  it('sets the round-trip cookie as __Host-, Path=/, Secure, without Domain, SameSite=Lax', async () => {
    const { setCookie, state } = await attackerRequest();
    const roundTrip = setCookie.find((line) => line.includes('demarkus_signin'));
    assert.ok(roundTrip !== undefined, setCookie.join(' | '));
    assert.ok(roundTrip.startsWith(`__Host-demarkus_signin=${state};`), roundTrip);
    const attributes = roundTrip.split(/;\s*/).slice(1);
    assert.ok(attributes.includes('Path=/'), roundTrip);
    assert.ok(attributes.includes('Secure'), roundTrip);
    assert.ok(attributes.includes('SameSite=Lax'), roundTrip);
    assert.ok(!attributes.some((attribute) => /^domain=/i.test(attribute)), roundTrip);
  });

  it("refuses a planted cookie of the old or a domain-wide name, and finishes only with the broker's own", async () => {
    const { idpUrl, state } = await attackerRequest();
    const url = await victimCallback(idpUrl);
    for (const planted of ['__Secure-demarkus_signin', 'demarkus_signin']) {
      const response = await callback(url, `${planted}=${state}`);
      const body = await response.text();
      assert.equal(
        response.status,
        400,
        `${planted}: answered ${response.status} to ${response.headers.get('location')}`,
      );
      assert.equal(response.headers.get('location'), null);
      assert.match(body, /Sign-in was started elsewhere/);
    }
    // The same answer with the cookie only the broker's host could have set goes through.
    const own = await callback(url, `__Host-demarkus_signin=${state}`);
    assert.equal(own.status, 303);
    const location = new URL(own.headers.get('location')!);
    assert.equal(location.origin + location.pathname, webClient.redirectUri);
    assert.ok(location.searchParams.get('code'), own.headers.get('location')!);
  });
});
