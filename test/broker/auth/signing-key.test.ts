import assert from 'node:assert/strict';
import { createHash, createPrivateKey, generateKeyPairSync } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  computeKeyId,
  generateSigningKeyPem,
  loadSigningKey,
  signingJwks,
  SigningKeyError,
} from '../../../src/broker/auth/signing-key.ts';

function sec1Pem(): { pem: string; pkcs8: string } {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return {
    pem: privateKey.export({ format: 'pem', type: 'sec1' }).toString(),
    pkcs8: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  };
}

describe('broker signing key (Go broker idtoken.go)', () => {
  it('loads a PKCS#8 P-256 key', () => {
    const key = loadSigningKey(generateSigningKeyPem());
    assert.equal(key.privateKey.asymmetricKeyDetails?.namedCurve, 'prime256v1');
    assert.equal(key.publicJwk.kty, 'EC');
  });

  it('loads a SEC1 "EC PRIVATE KEY" and gives it the same kid as its PKCS#8 form', () => {
    const { pem, pkcs8 } = sec1Pem();
    assert.match(pem, /BEGIN EC PRIVATE KEY/);
    assert.equal(loadSigningKey(pem).kid, loadSigningKey(pkcs8).kid);
  });

  it('computes kid as base64url(sha256(SPKI DER)[:8])', () => {
    const key = loadSigningKey(generateSigningKeyPem());
    const der = key.publicKey.export({ format: 'der', type: 'spki' });
    const expected = createHash('sha256').update(der).digest().subarray(0, 8).toString('base64url');
    assert.equal(key.kid, expected);
    assert.equal(computeKeyId(key.publicKey), expected);
    assert.equal(key.kid.length, 11);
  });

  it('publishes one ES256 signing JWK without private parts', () => {
    const key = loadSigningKey(generateSigningKeyPem());
    const jwks = signingJwks(key);
    assert.equal(jwks.keys.length, 1);
    const [jwk] = jwks.keys;
    assert.deepEqual(Object.keys(jwk!).sort(), ['alg', 'crv', 'kid', 'kty', 'use', 'x', 'y']);
    assert.equal(jwk!.alg, 'ES256');
    assert.equal(jwk!.use, 'sig');
    assert.equal(jwk!.kid, key.kid);
  });

  it('refuses a P-384 key', () => {
    const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'secp384r1' });
    const pem = privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
    assert.throws(
      () => loadSigningKey(pem),
      (error: unknown) =>
        error instanceof SigningKeyError && error.code === 'ERR_SIGNING_KEY_INVALID' && /P-256/.test(error.message),
    );
  });

  it('refuses an RSA key', () => {
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    assert.throws(
      () => loadSigningKey(privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()),
      SigningKeyError,
    );
  });

  it('refuses text that is not a PEM private key', () => {
    assert.throws(
      () => loadSigningKey('not a key'),
      (error: unknown) => error instanceof SigningKeyError && /readable PEM/.test(error.message),
    );
  });

  it('generates keys that load', () => {
    const pem = generateSigningKeyPem();
    assert.equal(createPrivateKey(pem).asymmetricKeyType, 'ec');
  });
});
