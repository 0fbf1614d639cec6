/**
 * The broker's one long-lived write token per world (Go broker `world_write_tokens.go`): the raw
 * token is kept by the broker (so every replica and restart uses the same one),
 * the world's tokens.toml holds only its hash under the label
 * `broker-write-<world>`. Operations are always `publish` and there is no
 * expiry: a `read` operation would switch the world's paths to read-auth and
 * break the broker's tokenless reads.
 */
import { generateToken, hashToken } from '../../../protocol/token.ts';

export type WriteTokenRecord = {
  /** `broker-write-<world>`. */
  label: string;
  /** 64 hex characters; never logged. */
  rawToken: string;
  /** `sha256-<hex>` of `rawToken`, as written in tokens.toml. */
  hash: string;
  paths: readonly string[];
};

/** As Go broker `Provision`: operations are hard-coded, never taken from config. */
export const writeTokenOperations: readonly string[] = ['publish'];

export function writeTokenLabel(world: string): string {
  return `broker-write-${world}`;
}

export function mintWriteTokenRecord(world: string, paths: readonly string[]): WriteTokenRecord {
  const rawToken = generateToken();
  return { label: writeTokenLabel(world), rawToken, hash: hashToken(rawToken), paths: [...paths] };
}

/** A record as read back from storage: a consistent hash and a raw token of the minted shape. */
export function isWellFormedRecord(record: WriteTokenRecord): boolean {
  return (
    /^[0-9a-f]{64}$/.test(record.rawToken) &&
    record.hash === hashToken(record.rawToken) &&
    record.label !== '' &&
    record.paths.length > 0
  );
}
