/**
 * Where the broker keeps its per-world write-token records. Two operations
 * with optimistic concurrency are all a backend provides, so a Kubernetes
 * Secret backend (resourceVersion) fits as well as the file backend (content
 * hash): the record first committed by any replica wins.
 *
 * Contract (every backend):
 * - `get` returns null when the world has no record, never a partial one;
 * - `put(…, null)` creates the record only if none exists, else throws
 *   WriteTokenConflictError; `put(…, version)` replaces it only if it is still
 *   at `version`, else throws WriteTokenConflictError;
 * - any other failure throws WriteTokenStoreError (with `cause`);
 * - raw tokens never appear in messages.
 */
import type { WriteTokenRecord } from './record.ts';
import { CodedError } from '../../../errors/coded-error.ts';

export type StoredWriteToken = {
  record: WriteTokenRecord;
  /** Opaque version for the next `put` (a content hash, a resourceVersion, …). */
  version: string;
};

export interface WriteTokenStore {
  get(world: string): Promise<StoredWriteToken | null>;
  put(world: string, record: WriteTokenRecord, expectedVersion: string | null): Promise<StoredWriteToken>;
}

export class WriteTokenConflictError extends CodedError<'ERR_WRITE_TOKEN_CONFLICT'> {
  readonly world: string;
  constructor(world: string) {
    super('ERR_WRITE_TOKEN_CONFLICT', `write-token record of world ${JSON.stringify(world)} changed concurrently`);
    this.world = world;
  }
}

export class WriteTokenStoreError extends CodedError<'ERR_WRITE_TOKEN_STORE'> {
  readonly world: string;
  constructor(world: string, message: string, options?: { cause?: unknown }) {
    super('ERR_WRITE_TOKEN_STORE', message, options);
    this.world = world;
  }
}
