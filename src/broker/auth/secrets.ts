import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** A fresh opaque secret: `bytes` random bytes, base64url (32 bytes = 256 bits, RFC 6749 §10.10). */
export function randomSecret(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

/** Lower-case hex SHA-256: how the broker keys codes, tokens and secrets at rest. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Equality that takes the same time wherever the strings differ: both sides
 * are hashed first, so their lengths leak nothing either.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a, 'utf8').digest();
  const right = createHash('sha256').update(b, 'utf8').digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}
