import type { Metadata } from '../../protocol/metadata.ts';

/** One retained version of a document, as stored. */
export type StoredVersion = {
  /** Canonical request path, e.g. `/docs/a.md`. */
  path: string;
  version: number;
  body: Uint8Array;
  /** Bare publisher keys as persisted (`ExtractMetadata`): tags read `a,b`. */
  metadata: Metadata;
  /** The version file's mtime, UTC, truncated to the second. */
  modified: Date;
  /** Hex SHA-256 of `raw`. */
  etag: string;
  /** `sha256-` + hex SHA-256 of `body`. */
  contentHash: string;
  /** The complete stored bytes, frontmatter included. */
  raw: Uint8Array;
};

/** A document's current version and its operational archive state. */
export type DocState = { path: string; current: StoredVersion; archived: boolean };

export type DirEntry = {
  name: string;
  kind: 'document' | 'directory';
  /** A document that is archived, or a directory with no live document beneath it. */
  archived: boolean;
};

export type VersionInfo = { version: number; modified: Date };

export type History = {
  /** Retained versions, newest first. */
  versions: VersionInfo[];
  chainValid: boolean;
  /** Why the chain failed, for logs; the wire only says `chain integrity check failed`. */
  chainError?: string;
};

/** Versions a retention prune removed; `error` set when it stopped early. */
export type PruneResult = { from: number; to: number; error?: Error };

export type WriteOutcome =
  | { kind: 'created'; version: StoredVersion; prune?: PruneResult }
  | { kind: 'unchanged'; version: StoredVersion };

export type ArchiveOutcome = { version: number; changed: boolean };

export type ChangeOp = 'publish' | 'append' | 'archive' | 'unarchive';

/** Emitted after a change is durable. `doc` is the document's state after it. */
export type ChangeEvent = { op: ChangeOp; path: string; version: number; doc: DocState };

export type ChangeListener = (event: ChangeEvent) => void;

/** A write as it would be stored, for a policy or quota hook (Go `PreparedWrite`). */
export type PreparedWrite = { path: string; body: Uint8Array; metadata: Metadata };

/**
 * Runs after the conflict, archive and no-op checks and before anything is
 * stored; throwing (e.g. a StoreError ERR_QUOTA or ERR_REJECTED) refuses the write.
 */
export type WriteCheck = (write: PreparedWrite) => void | Promise<void>;

/** Runs before an archive transition that would change state; throwing refuses it. */
export type ArchiveCheck = (change: { path: string; archived: boolean }) => void | Promise<void>;

export type FileStoreOptions = {
  /** The clock for new version mtimes (tests pin it). Default: the system clock. */
  now?: () => Date;
  /** Refuse every write with ERR_READ_ONLY and skip start-up repair. */
  readOnly?: boolean;
  writeCheck?: WriteCheck;
  archiveCheck?: ArchiveCheck;
};
