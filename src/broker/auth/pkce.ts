import { createHash } from 'node:crypto';
import { constantTimeEqual } from './secrets.ts';

/** RFC 7636 §4.1: 43 to 128 unreserved characters. */
const verifierPattern = /^[A-Za-z0-9\-._~]{43,128}$/;
/** RFC 7636 §4.2: S256 challenges are base64url(sha256) without padding, 43 characters. */
const challengePattern = /^[A-Za-z0-9\-_]{43}$/;

export function isValidCodeChallenge(challenge: string): boolean {
  return challengePattern.test(challenge);
}

/**
 * RFC 7636 §4.6 with S256, the only method OAuth 2.1 §4.1.1 lets us accept:
 * `BASE64URL(SHA256(ASCII(code_verifier))) == code_challenge`, compared in
 * constant time.
 */
export function verifyS256(verifier: string, challenge: string): boolean {
  if (!verifierPattern.test(verifier)) return false;
  const computed = createHash('sha256').update(verifier, 'ascii').digest('base64url');
  return constantTimeEqual(computed, challenge);
}
