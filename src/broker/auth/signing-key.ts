import { createHash, createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { errorWithCode } from '../../errors/coded-error.ts';

/** The broker's ES256 signing key (Go broker `idtoken.go`): one P-256 key, no rotation yet. */
export type SigningKey = {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** `base64url_nopad(sha256(PKIX DER of the public key)[:8])`, as the Go broker computes it. */
  kid: string;
  /** The public key as a JWK, ready for `/.well-known/jwks.json`. */
  publicJwk: PublicSigningJwk;
};

export type PublicSigningJwk = { kty: 'EC'; crv: 'P-256'; x: string; y: string; kid: string; alg: 'ES256'; use: 'sig' };

export class SigningKeyError extends errorWithCode('ERR_SIGNING_KEY_INVALID') {}

/**
 * Loads a P-256 private key from PEM: PKCS#8 (`PRIVATE KEY`) or SEC1
 * (`EC PRIVATE KEY`), the two forms `oidc.brokerSigningKey` accepts. Any other
 * key type or curve is refused, so a misconfigured key fails at startup.
 */
export function loadSigningKey(pem: string): SigningKey {
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey({ key: pem, format: 'pem' });
  } catch (cause) {
    throw new SigningKeyError('signing key is not a readable PEM private key', { cause });
  }
  if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== 'prime256v1') {
    throw new SigningKeyError(`signing key must be an EC P-256 key, got ${describeKey(privateKey)}`);
  }
  const publicKey = createPublicKey(privateKey);
  const kid = computeKeyId(publicKey);
  return { privateKey, publicKey, kid, publicJwk: toPublicJwk(publicKey, kid) };
}

/** Key id: the first 8 bytes of SHA-256 over the SubjectPublicKeyInfo DER, base64url without padding. */
export function computeKeyId(publicKey: KeyObject): string {
  const der = publicKey.export({ format: 'der', type: 'spki' });
  return createHash('sha256').update(der).digest().subarray(0, 8).toString('base64url');
}

/** The JWKS document the issuer publishes (`GET /.well-known/jwks.json`). */
export function signingJwks(key: SigningKey): { keys: PublicSigningJwk[] } {
  return { keys: [key.publicJwk] };
}

/** A fresh P-256 key as PKCS#8 PEM, for the development stack and tests. */
export function generateSigningKeyPem(): string {
  const { privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  return privateKey.export({ format: 'pem', type: 'pkcs8' }).toString();
}

function toPublicJwk(publicKey: KeyObject, kid: string): PublicSigningJwk {
  const jwk = publicKey.export({ format: 'jwk' });
  if (typeof jwk.x !== 'string' || typeof jwk.y !== 'string')
    throw new SigningKeyError('public key has no EC coordinates');
  return { kty: 'EC', crv: 'P-256', x: jwk.x, y: jwk.y, kid, alg: 'ES256', use: 'sig' };
}

function describeKey(key: KeyObject): string {
  const curve = key.asymmetricKeyDetails?.namedCurve;
  return curve === undefined ? String(key.asymmetricKeyType) : `${key.asymmetricKeyType} ${curve}`;
}
