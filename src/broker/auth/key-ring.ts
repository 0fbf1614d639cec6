/**
 * The broker's signing keys: the current key (`oidc.brokerSigningKey`) signs,
 * and a next key is published beside it in the JWKS ahead of time, so that
 * promoting it (copy it into `oidc.brokerSigningKey` and restart) logs nobody
 * out: verifiers already know it, and tokens of the old key stay valid until
 * they expire. The next key comes from `oidc.nextBrokerSigningKey`, or is
 * generated once; either way it is kept in durable state (`signing_keys.json`)
 * so every replica publishes the same one and a promotion is recognised.
 */
import {
  generateSigningKeyPem,
  loadSigningKey,
  signingJwks,
  type PublicSigningJwk,
  type SigningKey,
} from './signing-key.ts';
import { jsonDocument, signInDocuments, type StateDocumentStore } from '../state/index.ts';
import type { VerifierKey } from './verify-bearer.ts';

export type SigningKeyRing = {
  current: SigningKey;
  next: SigningKey | null;
  /** The key that was current before the last promotion, trusted until `previousUntil` (ms). */
  previous: SigningKey | null;
  previousUntil: number;
};

type KeysDocument = { current?: string; next?: string; previous?: string; previousUntil?: number };

const isKeysDocument = (value: unknown): value is KeysDocument =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export type KeyRingOptions = {
  currentPem: string;
  nextPem?: string;
  store?: StateDocumentStore;
  /** How long the previous key stays trusted after a promotion: the access-token lifetime. */
  previousTrustMs: number;
  now?: () => number;
};

export async function loadKeyRing(options: KeyRingOptions): Promise<SigningKeyRing> {
  const current = loadSigningKey(options.currentPem);
  const now = options.now?.() ?? Date.now();
  if (options.store === undefined) {
    return {
      current,
      next: options.nextPem === undefined ? null : loadSigningKey(options.nextPem),
      previous: null,
      previousUntil: 0,
    };
  }
  const document = jsonDocument<KeysDocument>(options.store, signInDocuments.signingKeys, () => ({}), isKeysDocument);
  const stored = await document.update((doc) => {
    const next = rotateDocument(doc, current, options, now);
    return { next, outcome: next };
  });
  return {
    current,
    next: loadSigningKey(options.nextPem ?? stored.next!),
    previous:
      stored.previous !== undefined && (stored.previousUntil ?? 0) > now ? loadSigningKey(stored.previous) : null,
    previousUntil: stored.previousUntil ?? 0,
  };
}

/**
 * Pure: the document after this start-up. The stored next key is the
 * configured one when there is one (so no generated private key rests unused
 * beside it, and promoting the configured key is recognised as a promotion),
 * otherwise the one generated before, or a fresh one. A promotion (the current
 * key is the stored next one) makes the old current key previous.
 */
function rotateDocument(doc: KeysDocument, current: SigningKey, options: KeyRingOptions, now: number): KeysDocument {
  const kidOf = (pem: string | undefined) => (pem === undefined ? undefined : loadSigningKey(pem).kid);
  const sameCurrent = kidOf(doc.current) === current.kid;
  if (sameCurrent && doc.next !== undefined && (options.nextPem === undefined || options.nextPem === doc.next))
    return doc;
  if (sameCurrent) return { ...doc, current: options.currentPem, next: options.nextPem ?? generateSigningKeyPem() };
  const promoted = doc.next !== undefined && kidOf(doc.next) === current.kid;
  const result: KeysDocument = {
    current: options.currentPem,
    next: options.nextPem ?? (promoted || doc.next === undefined ? generateSigningKeyPem() : doc.next),
  };
  if (doc.current !== undefined && promoted) {
    result.previous = doc.current;
    result.previousUntil = now + options.previousTrustMs;
  }
  return result;
}

/** The keys a verifier of broker tokens accepts. */
export function ringVerificationKeys(ring: SigningKeyRing, now = Date.now()): SigningKey[] {
  const keys = [ring.current];
  if (ring.next !== null) keys.push(ring.next);
  if (ring.previous !== null && ring.previousUntil > now) keys.push(ring.previous);
  return keys;
}

/**
 * The keys a bearer verifier trusts beside the current one, each until its own
 * end: the next key, and the previous one until `previousUntil`. The end is
 * checked at every verification (src/broker/auth/verify-bearer.ts), so a key
 * leaves the verifier when it leaves the JWKS, with no restart.
 */
export function ringAdditionalKeys(ring: SigningKeyRing): VerifierKey[] {
  const keys: VerifierKey[] = [];
  if (ring.next !== null) keys.push({ kid: ring.next.kid, publicKey: ring.next.publicKey });
  if (ring.previous !== null)
    keys.push({ kid: ring.previous.kid, publicKey: ring.previous.publicKey, until: ring.previousUntil });
  return keys;
}

/** `GET /.well-known/jwks.json`: every key a verifier should accept, the signing key first. */
export function ringJwks(ring: SigningKeyRing, now = Date.now()): { keys: PublicSigningJwk[] } {
  return { keys: ringVerificationKeys(ring, now).flatMap((key) => signingJwks(key).keys) };
}
