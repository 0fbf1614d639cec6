/**
 * Threat: remote phishing with a device code (RFC 8628 §5.4). Anyone may
 * register a client under any name (RFC 7591), start a device authorization
 * asking for `mark.write`, and get a person to type the code at the broker's
 * verification page ("your IT desk needs you to enter this code"). RFC 8628
 * §5.4 says the server SHOULD show who asks and have the person confirm.
 *
 * The attack succeeded while a typed code went straight to the IdP (checked
 * by running this file against it): the page named the program and its
 * access only when the code came in the link (`verification_uri_complete`);
 * a typed code was posted, matched, and redirected to the IdP in the same
 * request, so a person already signed in there signed the attacker's device
 * in with write access without ever being told who asked.
 *
 * The real broker, its real pages and the real development IdP; the person's
 * browser is the test user agent, which stops before following a redirect to
 * the IdP so that the test sees whether the broker sent it there.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startSignInStack, type SignInStack } from '../e2e/signin-fixture.ts';
import { UserAgent, type Page } from '../e2e/signin-user-agent.ts';

const deviceGrant = 'urn:ietf:params:oauth:grant-type:device_code';
/** The built-in CLI's own name, chosen by the attacker at registration. */
const deceptiveName = 'demarkus-broker CLI';

describe('security: a typed device code is confirmed before anyone is sent to sign in', () => {
  let stack: SignInStack;
  let attackerClient: string;
  before(async () => {
    stack = await startSignInStack();
    const registered = await fetch(`${stack.issuer}/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        client_name: deceptiveName,
        grant_types: [deviceGrant],
        token_endpoint_auth_method: 'none',
      }),
    });
    assert.equal(registered.status, 201);
    attackerClient = ((await registered.json()) as { client_id: string }).client_id;
  });
  after(() => stack.close());

  const attackerCode = async () => {
    const { status, json } = await stack.post('/device/authorize', {
      client_id: attackerClient,
      scope: 'mark.read mark.write',
    });
    assert.equal(status, 200, JSON.stringify(json));
    return json as { device_code: string; user_code: string };
  };
  const poll = (deviceCode: string) =>
    stack.post('/oauth/token', { grant_type: deviceGrant, device_code: deviceCode, client_id: attackerClient });
  /** A browser that records, but does not follow, a redirect to the IdP. */
  const victim = () => {
    const agent = new UserAgent();
    agent.stopAt = stack.idp.issuer;
    return agent;
  };
  /** The person opens the verification_uri, types the code and presses "Continue to sign-in". */
  const typeCode = async (agent: UserAgent, userCode: string): Promise<Page> =>
    agent.submit(await agent.go(`${stack.issuer}/device`), { user_code: userCode }, 'action=approve');

  const assertConfirmationNaming = (page: Page, userCode: string) => {
    assert.equal(page.status, 200, `${page.url}: ${page.html.slice(0, 300)}`);
    assert.ok(page.url.startsWith(`${stack.issuer}/device`), `still at the broker, not sent on to ${page.url}`);
    assert.match(page.html, /<strong>demarkus-broker CLI<\/strong> asks to sign in as you\./);
    assert.match(page.html, /Not verified: the application chose this name itself when it registered\./);
    assert.match(page.html, /<li>read the documents you may read, in every world<\/li>/);
    assert.match(page.html, /<li>publish and change documents in the worlds where you may write<\/li>/);
    assert.match(page.html, new RegExp(`name="user_code" value="${userCode}"`));
    assert.match(page.html, /name="csrf" value="[^"]+"/);
  };

  it('answers a typed code with a page naming the client and its scopes, not a redirect to the IdP', async () => {
    const grant = await attackerCode();
    const agent = victim();
    const typed = grant.user_code.toLowerCase().replace('-', '');
    const confirm = await typeCode(agent, typed);
    assertConfirmationNaming(confirm, grant.user_code);
    assert.ok(!agent.trace.some((step) => / 303$/.test(step)), `no redirect before confirming: ${agent.trace}`);
    assert.equal((await poll(grant.device_code)).json.error, 'authorization_pending');

    // Only the person's confirmation on that page sends them to the IdP.
    const sent = await agent.submit(confirm, {}, 'action=approve');
    assert.ok(sent.url.startsWith(stack.idp.issuer), `confirmed: sent to the IdP, got ${sent.url}`);
  });

  it('denies the grant when the person presses Deny on the confirmation page', async () => {
    const grant = await attackerCode();
    const agent = victim();
    const confirm = await typeCode(agent, grant.user_code);
    assertConfirmationNaming(confirm, grant.user_code);
    const denied = await agent.submit(confirm, {}, 'action=deny');
    assert.equal(denied.status, 200);
    assert.match(denied.html, /Request denied/);
    assert.equal((await poll(grant.device_code)).json.error, 'access_denied');
  });

  it('does not let the confirmation of one code carry over to another code typed into the same form', async () => {
    const [shown, swapped] = [await attackerCode(), await attackerCode()];
    const agent = victim();
    const confirm = await typeCode(agent, shown.user_code);
    assertConfirmationNaming(confirm, shown.user_code);
    const other = await agent.submit(confirm, { user_code: swapped.user_code }, 'action=approve');
    assertConfirmationNaming(other, swapped.user_code);
  });

  it('refuses a confirmation posted from another site', async () => {
    const grant = await attackerCode();
    const agent = victim();
    const confirm = await typeCode(agent, grant.user_code);
    const fields = Object.fromEntries(
      [...confirm.html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)].map((m) => [m[1]!, m[2]!]),
    );
    assert.ok(fields.shown !== undefined, 'the confirmation form carries its proof');
    const crossSite = await agent.go(`${stack.issuer}/device`, {
      method: 'POST',
      form: { ...fields, user_code: grant.user_code, action: 'approve' },
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(crossSite.status, 403);
    assert.equal((await poll(grant.device_code)).json.error, 'authorization_pending');
  });
});
