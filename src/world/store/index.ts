export { FileStore } from './file-store.ts';
export { StoreError, isStoreError, type StoreErrorCode } from './errors.ts';
export { goTempLinkFolderProblem, overlongNameProblem } from './paths.ts';
export {
  applyOkfTypeDefault,
  extractPublisherMeta,
  formatTagsList,
  metaEqual,
  normalizeMetadata,
  parseRetention,
  parseTagsList,
  prepareAppendMeta,
  retentionKey,
  retentionValue,
  storeReservedKeys,
  validateMeta,
} from './publisher-meta.ts';
export {
  contentHash,
  extractBody,
  extractMetadata,
  extractPreviousHash,
  joinContent,
  serializeVersion,
  storedEtag,
} from './stored-format.ts';
export { inspectStoredVersion, type StoredHeader } from './strict-reader.ts';
export type { HistoryReading } from './doc-reader.ts';
export type { RecoveryReport } from './recovery.ts';
export type {
  ArchiveCheck,
  ArchiveOutcome,
  ChangeEvent,
  ChangeListener,
  ChangeOp,
  DirEntry,
  DocState,
  FileStoreOptions,
  History,
  PreparedWrite,
  PruneResult,
  StoredVersion,
  VersionInfo,
  WriteCheck,
  WriteOutcome,
} from './types.ts';
