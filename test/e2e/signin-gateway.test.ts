import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { SignJWT, base64url } from 'jose';
import { mintBrokerToken } from '../../src/broker/auth/mint-broker-token.ts';
import { initializeBody, jsonRpcHeaders } from '../broker/http/raw-http.ts';
import { startSignInStack, type SignInStack } from './signin-fixture.ts';

/**
 * What the MCP gateway does with the tokens around sign-in: it accepts broker
 * tokens for its own resource, from the current or the next key, and refuses
 * every other kind (MCP authorization, token audience validation; RFC 8725).
 */
describe('gateway bearer checks after sign-in', () => {
  let stack: SignInStack;
  const logLines: string[] = [];
  before(async () => {
    stack = await startSignInStack({ logLines });
  });
  after(() => stack.close());

  const callMcp = (token: string) =>
    fetch(stack.resource, { method: 'POST', headers: jsonRpcHeaders(token), body: initializeBody });
  const mint = (overrides: Partial<Parameters<typeof mintBrokerToken>[0]> = {}) =>
    mintBrokerToken({
      key: stack.broker.trust.key,
      issuer: stack.issuer,
      audience: stack.resource,
      email: 'ok@example.com',
      hostedDomain: 'example.com',
      ...overrides,
    });

  it('accepts a token for its resource', async () => {
    assert.equal((await callMcp(await mint())).status, 200);
  });

  it('refuses an expired token', async () => {
    const response = await callMcp(await mint({ now: () => new Date(Date.now() - 3_600_000), ttlSeconds: 60 }));
    assert.equal(response.status, 401);
    assert.match(response.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
  });

  it('refuses a token minted for another audience (RFC 8707)', async () => {
    assert.equal((await callMcp(await mint({ audience: 'https://other.example/mcp' }))).status, 401);
  });

  it('refuses alg none and HS256 signed with the public key (RFC 8725 §2.1)', async () => {
    const header = (alg: string) =>
      base64url.encode(JSON.stringify({ alg, typ: 'JWT', kid: stack.broker.trust.key.kid }));
    const claims = base64url.encode(
      JSON.stringify({
        iss: stack.issuer,
        aud: stack.resource,
        sub: 'x',
        email: 'ok@example.com',
        email_verified: true,
        exp: Math.floor(Date.now() / 1000) + 600,
      }),
    );
    assert.equal((await callMcp(`${header('none')}.${claims}.`)).status, 401);
    const publicPem = stack.broker.trust.key.publicKey.export({ format: 'pem', type: 'spki' }).toString();
    const hs256 = await new SignJWT({ email: 'ok@example.com', email_verified: true })
      .setProtectedHeader({ alg: 'HS256', kid: stack.broker.trust.key.kid })
      .setIssuer(stack.issuer)
      .setAudience(stack.resource)
      .setSubject('x')
      .setExpirationTime('10m')
      .sign(new TextEncoder().encode(publicPem));
    assert.equal((await callMcp(hs256)).status, 401);
  });

  it('refuses a token whose hosted domain is outside oidc.allowDomains, on every request', async () => {
    assert.equal((await callMcp(await mint({ hostedDomain: 'elsewhere.test' }))).status, 401);
    assert.equal((await callMcp(await mint({ hostedDomain: undefined }))).status, 401);
  });

  it('accepts a token signed with the published next key, so promoting it logs nobody out', async () => {
    const next = stack.broker.signIn!.ring.next!;
    assert.notEqual(next.kid, stack.broker.trust.key.kid);
    assert.equal((await callMcp(await mint({ key: next }))).status, 200);
  });

  it('keeps user codes, authorization codes and state out of the request logs', async () => {
    await fetch(`${stack.issuer}/device?user_code=WDJB-MJHT`);
    await fetch(`${stack.issuer}/auth/callback?code=secret-code-value&state=secret-state-value`);
    const logged = logLines.join('');
    assert.match(logged, /"url":"\/auth\/callback"/);
    assert.doesNotMatch(logged, /WDJB-MJHT|secret-code-value|secret-state-value/);
  });
});
