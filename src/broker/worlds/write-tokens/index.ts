/** Write tokens: the record, the two storage ports, and their file backends. */
export { mintWriteTokenRecord, writeTokenLabel, writeTokenOperations } from './record.ts';
export type { WriteTokenRecord } from './record.ts';
export { WriteTokenConflictError, WriteTokenStoreError } from './store.ts';
export type { StoredWriteToken, WriteTokenStore } from './store.ts';
export { TokensSinkError } from './sink.ts';
export type { EnsureOutcome, WorldTokensSink } from './sink.ts';
export { formatTokenEntry } from '../../../protocol/tokens-entry.ts';
export type { TokenEntryFields } from '../../../protocol/tokens-entry.ts';
export { ensureTokenEntry, TokensTomlError } from './tokens-toml-edit.ts';
export { FileWriteTokenStore } from './file-write-token-store.ts';
export { FileTokensSink } from './file-tokens-sink.ts';
export { WriteTokenProvisioner } from './provisioner.ts';
