import { createHash, randomBytes } from 'node:crypto';

/** Prefix of every hash the protocol prints (content hashes, token hashes, chain links). */
export const sha256Prefix = 'sha256-';

/** Lower-case hex SHA-256 of some bytes or UTF-8 text. */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/** `sha256-<hex>`, the form of `content-hash`, `previous-hash` and token hashes. */
export function prefixedSha256(data: Uint8Array | string): string {
  return sha256Prefix + sha256Hex(data);
}

/** How a server stores a token: `sha256-` + hex SHA-256 of the raw token (protocol.HashToken). */
export function hashToken(rawToken: string): string {
  return prefixedSha256(rawToken);
}

/** A new raw token: 32 random bytes as 64 lower-case hex characters (protocol/token.Generate). */
export function generateToken(): string {
  return randomBytes(32).toString('hex');
}
