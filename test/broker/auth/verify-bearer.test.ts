import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, SignJWT } from 'jose';
import { BearerError, type BearerErrorCode } from '../../../src/broker/auth/bearer-error.ts';
import { mintBrokerToken } from '../../../src/broker/auth/mint-broker-token.ts';
import { remoteJwks } from '../../../src/broker/auth/remote-jwks.ts';
import { generateSigningKeyPem, loadSigningKey } from '../../../src/broker/auth/signing-key.ts';
import { createBearerVerifier, type BearerVerifier } from '../../../src/broker/auth/verify-bearer.ts';
import { startLocalIdp, unsecuredJwt, type LocalIdp } from './helpers.ts';

const issuer = 'https://broker.example.com';
const resource = 'https://mcp.example.com/mcp';
const clientId = 'broker-client';
const key = loadSigningKey(generateSigningKeyPem());
const otherKey = loadSigningKey(generateSigningKeyPem());
const brokerTrust = { publicKey: key.publicKey, kid: key.kid, issuer, audiences: [resource] };
const mint = (extra: Partial<Parameters<typeof mintBrokerToken>[0]> = {}) =>
  mintBrokerToken({ key, issuer, audience: resource, email: 'Ada@Example.com', ...extra });

/**
 * A JWT under the broker's kid for its issuer and resource, subject `s`, valid for 10 minutes, carrying
 * `claims` and signed with `alg` by `signingKey`: the broker token a forger or a buggy minter would make.
 */
function brokerKidToken(
  claims: Record<string, unknown>,
  alg: string,
  signingKey: Parameters<SignJWT['sign']>[0],
): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg, kid: key.kid })
    .setIssuer(issuer)
    .setAudience(resource)
    .setSubject('s')
    .setExpirationTime('10m')
    .sign(signingKey);
}

/** An unsigned JWT (alg none) under `kid`, otherwise a valid token of `iss` for `aud` with a verified email. */
function unsignedToken(kid: string, claims: { iss: string; aud: string; email: string }): string {
  return unsecuredJwt({ kid }, { ...claims, sub: 's', email_verified: true, exp: Math.floor(Date.now() / 1000) + 600 });
}

/** When a verifier with `leeway` seconds stops accepting `token`: its own `exp` plus the leeway, in ms. */
function acceptedUntilOf(token: string, leeway: number): number {
  return ((decodeJwt(token).exp as number) + leeway) * 1000;
}

async function refusal(verify: BearerVerifier, header: string | undefined): Promise<BearerError> {
  try {
    await verify(header);
  } catch (error) {
    assert.ok(error instanceof BearerError, `expected BearerError, got ${String(error)}`);
    return error;
  }
  assert.fail('the token was accepted');
}

async function assertRefused(
  verify: BearerVerifier,
  header: string | undefined,
  code: BearerErrorCode,
): Promise<BearerError> {
  const error = await refusal(verify, header);
  assert.equal(error.code, code, `detail: ${error.message}`);
  return error;
}

describe('broker tokens (ES256, own key)', () => {
  const verify = createBearerVerifier({ broker: brokerTrust });

  it('accepts a broker token and yields the lower-cased email as identity', async () => {
    const token = await mint({ groups: ['Team-A'] });
    const identity = await verify(`Bearer ${token}`);
    assert.deepEqual(identity, {
      subject: 'ada@example.com',
      email: 'ada@example.com',
      emailVerified: true,
      groups: ['team-a'],
      scopes: ['mark.read', 'mark.write'],
      issuedBy: 'broker',
      acceptedUntil: acceptedUntilOf(token, 60),
    });
  });

  it('carries how long the token is accepted: its exp plus the leeway, as the verifier refuses it after', async () => {
    const issuedAt = new Date('2026-01-01T00:00:00Z');
    const token = await mint({ ttlSeconds: 60, now: () => issuedAt });
    const at = (seconds: number, leeway: number) =>
      createBearerVerifier({
        broker: brokerTrust,
        clockToleranceSeconds: leeway,
        currentDate: () => new Date(issuedAt.getTime() + seconds * 1000),
      });
    const expMs = issuedAt.getTime() + 60_000;
    assert.equal((await at(0, 0)(`Bearer ${token}`)).acceptedUntil, expMs);
    assert.equal((await at(0, 30)(`Bearer ${token}`)).acceptedUntil, expMs + 30_000);
    assert.equal((await at(60 + 29, 30)(`Bearer ${token}`)).acceptedUntil, expMs + 30_000);
    await assertRefused(at(60 + 31, 30), `Bearer ${token}`, 'ERR_BEARER_EXPIRED');
  });

  it('carries the end of a retired key when it comes before the token expires', async () => {
    const retiredUntil = Date.now() + 60_000;
    const retired = loadSigningKey(generateSigningKeyPem());
    const verifyRotated = createBearerVerifier({
      broker: {
        ...brokerTrust,
        additionalKeys: [{ kid: retired.kid, publicKey: retired.publicKey, until: retiredUntil }],
      },
    });
    const token = await mintBrokerToken({ key: retired, issuer, audience: resource, email: 'ada@example.com' });
    assert.equal((await verifyRotated(`Bearer ${token}`)).acceptedUntil, retiredUntil);
  });

  it('accepts the scheme in any case', async () => {
    assert.equal((await verify(`bEaReR ${await mint()}`)).email, 'ada@example.com');
  });

  it('refuses a missing header with invalid_request and 401', async () => {
    const error = await assertRefused(verify, undefined, 'ERR_BEARER_MISSING');
    assert.equal(error.error, 'invalid_request');
    assert.equal(error.status, 401);
  });

  it('refuses a non-Bearer scheme as missing credentials', async () => {
    await assertRefused(verify, 'Basic YWRhOnB3', 'ERR_BEARER_MISSING');
  });

  it('refuses a header with more than two fields as malformed (400)', async () => {
    const error = await assertRefused(verify, `Bearer ${await mint()} extra`, 'ERR_BEARER_MALFORMED');
    assert.equal(error.status, 400);
  });

  it('refuses a token that is not a JWS', async () => {
    const error = await assertRefused(verify, 'Bearer not-a-jwt', 'ERR_BEARER_INVALID');
    assert.equal(error.error, 'invalid_token');
    assert.equal(error.description, 'invalid bearer token');
  });

  it('refuses an expired token with invalid_token', async () => {
    const error = await assertRefused(
      verify,
      `Bearer ${await mint({ ttlSeconds: 60, now: () => new Date(Date.now() - 3600_000) })}`,
      'ERR_BEARER_EXPIRED',
    );
    assert.equal(error.error, 'invalid_token');
  });

  it('allows up to 60 s of clock skew past exp, and not more', async () => {
    const issuedAt = new Date('2026-01-01T00:00:00Z');
    const token = await mint({ ttlSeconds: 60, now: () => issuedAt });
    const at = (seconds: number) =>
      createBearerVerifier({ broker: brokerTrust, currentDate: () => new Date(issuedAt.getTime() + seconds * 1000) });
    assert.equal((await at(60 + 59)(`Bearer ${token}`)).email, 'ada@example.com');
    await assertRefused(at(60 + 61), `Bearer ${token}`, 'ERR_BEARER_EXPIRED');
  });

  it('refuses a token for another audience', async () => {
    const error = await assertRefused(
      verify,
      `Bearer ${await mint({ audience: 'https://other.example.com/mcp' })}`,
      'ERR_BEARER_INVALID',
    );
    assert.match(error.message, /aud/);
  });

  it('refuses a token from another issuer', async () => {
    const token = await mintBrokerToken({
      key,
      issuer: 'https://evil.example.com',
      audience: resource,
      email: 'ada@example.com',
    });
    const error = await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_INVALID');
    assert.match(error.message, /iss/);
  });

  it('treats a bad signature under the broker kid as final, even with an upstream configured', async () => {
    const forged = await mintBrokerToken({
      key: { ...otherKey, kid: key.kid },
      issuer,
      audience: resource,
      email: 'ada@example.com',
    });
    const upstreamCalls: string[] = [];
    const withUpstream = createBearerVerifier({
      broker: brokerTrust,
      upstream: {
        issuer: 'https://idp.example.com',
        clientId,
        jwks: async () => {
          upstreamCalls.push('called');
          return otherKey.publicKey;
        },
      },
    });
    const error = await assertRefused(withUpstream, `Bearer ${forged}`, 'ERR_BEARER_INVALID');
    assert.match(error.message, /signature/);
    assert.deepEqual(upstreamCalls, []);
  });

  it('refuses a broker-signed token without exp, which would be accepted for ever (deny on doubt)', async () => {
    const token = await new SignJWT({ email: 'ada@example.com', email_verified: true })
      .setProtectedHeader({ alg: 'ES256', kid: key.kid })
      .setIssuer(issuer)
      .setAudience(resource)
      .setSubject('s')
      .sign(key.privateKey);
    await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_INVALID');
  });

  it('refuses alg none under the broker kid', async () => {
    const token = unsignedToken(key.kid, { iss: issuer, aud: resource, email: 'ada@example.com' });
    await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_INVALID');
  });

  it('refuses HS256 signed with the public key bytes (algorithm confusion)', async () => {
    const secret = new TextEncoder().encode(key.publicKey.export({ format: 'pem', type: 'spki' }).toString());
    const token = await brokerKidToken({ email: 'ada@example.com', email_verified: true }, 'HS256', secret);
    const error = await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_INVALID');
    assert.match(error.message, /ERR_JOSE_ALG_NOT_ALLOWED/);
  });

  it('refuses a token without the broker kid when no upstream issuer is configured', async () => {
    const token = await mintBrokerToken({ key: otherKey, issuer, audience: resource, email: 'ada@example.com' });
    await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_INVALID');
  });

  it('refuses an unverified email', async () => {
    const token = await brokerKidToken({ email: 'ada@example.com', email_verified: false }, 'ES256', key.privateKey);
    const error = await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_EMAIL_UNVERIFIED');
    assert.equal(error.description, 'email not verified');
  });

  it('refuses a token whose email is blank', async () => {
    const token = await brokerKidToken({ email: '  ', email_verified: true }, 'ES256', key.privateKey);
    await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_EMAIL_MISSING');
  });

  it('refuses a leeway above 60 seconds at construction', () => {
    assert.throws(() => createBearerVerifier({ broker: brokerTrust, clockToleranceSeconds: 61 }), RangeError);
  });
});

describe('upstream ID tokens (remote JWKS)', () => {
  let idp: LocalIdp;
  let verify: BearerVerifier;
  before(async () => {
    idp = await startLocalIdp(clientId);
    verify = createBearerVerifier({
      broker: brokerTrust,
      upstream: { issuer: idp.issuer, clientId, jwks: remoteJwks(idp.jwksUri) },
    });
  });
  after(() => idp.close());

  it('accepts an ID token of the configured issuer, fetched keys and all', async () => {
    const token = await idp.sign({
      email: 'Grace@Example.com',
      email_verified: true,
      groups: ['Ops'],
      hd: 'example.com',
    });
    const identity = await verify(`Bearer ${token}`);
    assert.deepEqual(identity, {
      subject: 'idp-subject-1',
      email: 'grace@example.com',
      emailVerified: true,
      groups: ['ops'],
      hostedDomain: 'example.com',
      scopes: ['mark.read', 'mark.write'],
      issuedBy: 'upstream',
      acceptedUntil: acceptedUntilOf(token, 60),
    });
    assert.ok(idp.fetches() >= 1);
  });

  it('accepts email_verified sent as the string "true"', async () => {
    const token = await idp.sign({ email: 'grace@example.com', email_verified: 'true' });
    assert.equal((await verify(`Bearer ${token}`)).issuedBy, 'upstream');
  });

  it('refuses an ID token for another client id', async () => {
    const token = await idp.sign({ email: 'grace@example.com', email_verified: true }, { audience: 'someone-else' });
    await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_INVALID');
  });

  it('refuses an ID token of another issuer signed with the same keys', async () => {
    const token = await idp.sign(
      { email: 'grace@example.com', email_verified: true },
      { issuer: 'https://evil.example.com' },
    );
    await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_INVALID');
  });

  it('refuses an ID token with an unverified email', async () => {
    const token = await idp.sign({ email: 'grace@example.com', email_verified: false });
    await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_EMAIL_UNVERIFIED');
  });

  it('refuses an expired ID token', async () => {
    const token = await idp.sign({ email: 'grace@example.com', email_verified: true }, { expiresIn: '-5m' });
    await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_EXPIRED');
  });

  it('refuses an ID token without exp, which would be accepted for ever (deny on doubt)', async () => {
    const token = await idp.sign({ email: 'grace@example.com', email_verified: true }, { expiresIn: null });
    await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_INVALID');
  });

  it('refuses a token whose kid the IdP does not publish', async () => {
    const token = await idp.sign({ email: 'grace@example.com', email_verified: true }, { kid: 'unknown-kid' });
    await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_INVALID');
  });

  it('refuses alg none on the upstream path', async () => {
    const token = unsignedToken('idp-key-1', { iss: idp.issuer, aud: clientId, email: 'grace@example.com' });
    await assertRefused(verify, `Bearer ${token}`, 'ERR_BEARER_INVALID');
  });
});
