/**
 * The stored form of a write-token record, the one both backends keep (a file
 * in storage.dir, a Kubernetes Secret's value): the Go broker's
 * `writeTokenRecord` as `json.Marshal` writes it (Go broker
 * `world_write_tokens.go`), so state moves between the two brokers and
 * between the two backends.
 */
import { isWellFormedRecord, writeTokenOperations, type WriteTokenRecord } from './record.ts';
import { WriteTokenStoreError } from './store.ts';

/** Go `json.Marshal(writeTokenRecord)`: field order as the struct, no spaces. */
export function encodeWriteTokenRecord(record: WriteTokenRecord): Buffer {
  return Buffer.from(
    JSON.stringify({
      label: record.label,
      rawToken: record.rawToken,
      entry: { Hash: record.hash, Paths: record.paths, Operations: writeTokenOperations, Expires: '' },
    }),
  );
}

/** The record in `bytes`, or WriteTokenStoreError when they are not one of the shape `isWellFormedRecord` checks. */
export function decodeWriteTokenRecord(world: string, bytes: Buffer): WriteTokenRecord {
  const malformed = () =>
    new WriteTokenStoreError(world, `the write-token record of world ${JSON.stringify(world)} is malformed`);
  let value: { label?: unknown; rawToken?: unknown; entry?: { Hash?: unknown; Paths?: unknown } };
  try {
    // `?? {}`: the JSON text `null` is malformed like any other wrong shape, not a TypeError.
    value = JSON.parse(bytes.toString('utf8')) ?? {};
  } catch {
    throw malformed();
  }
  const paths = value.entry?.Paths;
  if (typeof value.label !== 'string' || typeof value.rawToken !== 'string' || typeof value.entry?.Hash !== 'string')
    throw malformed();
  if (!Array.isArray(paths) || !paths.every((path) => typeof path === 'string')) throw malformed();
  const record: WriteTokenRecord = { label: value.label, rawToken: value.rawToken, hash: value.entry.Hash, paths };
  if (!isWellFormedRecord(record)) throw malformed();
  return record;
}
