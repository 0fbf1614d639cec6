/**
 * Threat: device-code phishing under the built-in CLI's name (RFC 8628
 * §5.4). `demarkus-cli` is a public client (no secret), so anyone, on their
 * own machine, may start a device sign-in as it, send a person the
 * `verification_uri_complete` link ("IT needs you to confirm this"), and
 * poll for the tokens the person's approval issues.
 *
 * The attack succeeded before the fix (checked by running this file against
 * it): the confirmation page showed the attacker's request in green as
 * "Verified: the demarkus command-line tool, built into this sign-in
 * service", which reads as "this request is safe", though a public client's
 * id proves nothing about who started the request. Now the page names the
 * tool without the verified style, says that anyone can start such a
 * request, and to continue only if the person ran `demarkus-broker login`
 * just now; "Verified" is kept for confidential clients the operator
 * configured.
 *
 * The real broker, its real device endpoints and page, and the real
 * development IdP.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSignInStack, type SignInStack } from '../e2e/signin-fixture.ts';

const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';

describe("security: the built-in CLI's name is not shown as proof that a request is safe", () => {
  let stack: SignInStack;
  before(async () => {
    stack = await startSignInStack();
  });
  after(() => stack.close());

  it('shows an attacker-started device sign-in as demarkus-cli without "Verified", and says when to continue', async () => {
    // The attacker, with no secret: the built-in public client id.
    const start = await stack.post('/device/authorize', { client_id: 'demarkus-cli', scope: 'mark.read mark.write' });
    assert.equal(start.status, 200, JSON.stringify(start.json));
    // The victim opens the link the attacker sent.
    const html = await (await fetch(String(start.json.verification_uri_complete))).text();
    assert.match(html, /<strong>demarkus-broker CLI<\/strong> asks to sign in as you\./);
    assert.doesNotMatch(html, /class="verified"/);
    assert.doesNotMatch(html, /Verified/);
    const standing = html.match(/<p class="unverified">([^<]*)<\/p>/)?.[1] ?? '';
    assert.match(standing, /demarkus command-line tool/);
    assert.match(standing, /anyone can start/i);
    assert.match(standing, /only if you ran demarkus-broker login yourself just now/);
    // The attacker's poll is still pending: nothing is issued before the person continues.
    const poll = await stack.post('/oauth/token', {
      grant_type: deviceGrant,
      client_id: 'demarkus-cli',
      device_code: String(start.json.device_code),
    });
    assert.equal(poll.json.error, 'authorization_pending');
  });
});
