import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { defaultBrokerTokenTtlSeconds, mintBrokerToken } from '../../../src/broker/auth/mint-broker-token.ts';
import { generateSigningKeyPem, loadSigningKey } from '../../../src/broker/auth/signing-key.ts';

const key = loadSigningKey(generateSigningKeyPem());
const issuedAt = new Date('2026-03-01T12:00:00Z');

describe('mintBrokerToken (demarkus-broker token --email)', () => {
  it('signs ES256 with typ JWT and the key id', async () => {
    const token = await mintBrokerToken({
      key,
      issuer: 'https://b',
      audience: 'https://m/mcp',
      email: 'ada@example.com',
    });
    assert.deepEqual(decodeProtectedHeader(token), { alg: 'ES256', typ: 'JWT', kid: key.kid });
  });

  it('writes the claims of the Go broker idtoken.go with a canonical email', async () => {
    const token = await mintBrokerToken({
      key,
      issuer: 'https://b',
      audience: 'https://m/mcp',
      email: ' Ada@Example.COM ',
      groups: ['team-a'],
      hostedDomain: 'example.com',
      now: () => issuedAt,
    });
    const iat = issuedAt.getTime() / 1000;
    assert.deepEqual(decodeJwt(token), {
      iss: 'https://b',
      aud: 'https://m/mcp',
      sub: 'ada@example.com',
      iat,
      exp: iat + defaultBrokerTokenTtlSeconds,
      email: 'ada@example.com',
      email_verified: true,
      groups: ['team-a'],
      hd: 'example.com',
      scope: 'mark.read mark.write',
    });
  });

  it('omits empty groups and honours an explicit subject and lifetime', async () => {
    const claims = decodeJwt(
      await mintBrokerToken({
        key,
        issuer: 'https://b',
        audience: ['a', 'b'],
        email: 'x@y.z',
        subject: 'idp|42',
        groups: [],
        ttlSeconds: 3600,
        now: () => issuedAt,
      }),
    );
    assert.equal(claims.groups, undefined);
    assert.equal(claims.sub, 'idp|42');
    assert.deepEqual(claims.aud, ['a', 'b']);
    assert.equal(claims.exp! - claims.iat!, 3600);
  });

  it('refuses an empty email and a non-positive lifetime', async () => {
    await assert.rejects(mintBrokerToken({ key, issuer: 'https://b', audience: 'a', email: ' ' }), RangeError);
    await assert.rejects(
      mintBrokerToken({ key, issuer: 'https://b', audience: 'a', email: 'x@y.z', ttlSeconds: 0 }),
      RangeError,
    );
  });
});
