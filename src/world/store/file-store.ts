/**
 * The world's document store on the file system, byte-compatible with the Go
 * `protocol/store` layout (Mark SPEC §9.3): a volume written by either server can
 * be served by the other. This class only sequences: per-document write locks,
 * the read-only switch, and change events after each durable change; the steps
 * live in doc-reader, doc-writer, doc-append, doc-archive, listing and recovery.
 *
 * Paths are request paths (`/docs/a.md`); they are canonicalised here, and a
 * `..` segment is never found.
 */
import { mkdir, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Metadata } from '../../protocol/metadata.ts';
import { setArchived, type ArchiveContext } from './doc-archive.ts';
import { appendDocument } from './doc-append.ts';
import { readCurrent, readHistory, readVersion, type HistoryReading } from './doc-reader.ts';
import { writeDocument, type WriterContext } from './doc-writer.ts';
import { StoreError } from './errors.ts';
import { listDirectory, isDirectoryPath, type ListingWindow } from './listing.ts';
import { canonicalPath, containsDotDot } from './paths.ts';
import { PathLocks } from './path-locks.ts';
import { recoverTree, type RecoveryReport } from './recovery.ts';
import type {
  ArchiveOutcome,
  ChangeEvent,
  ChangeListener,
  ChangeOp,
  DirEntry,
  DocState,
  FileStoreOptions,
  History,
  StoredVersion,
  WriteOutcome,
} from './types.ts';
import { walkDocuments } from './walk.ts';
import { CurrentCache } from './current-cache.ts';

export class FileStore {
  readonly root: string;
  /** What start-up repair did; empty for a clean store or a read-only one. */
  readonly recovery: RecoveryReport;
  readonly #ctx: WriterContext & ArchiveContext;
  readonly #readOnly: boolean;
  readonly #locks = new PathLocks();
  readonly #listeners = new Set<ChangeListener>();
  readonly #cache = new CurrentCache();

  private constructor(ctx: WriterContext & ArchiveContext, readOnly: boolean, recovery: RecoveryReport) {
    this.root = ctx.root;
    this.#ctx = ctx;
    this.#readOnly = readOnly;
    this.recovery = recovery;
  }

  /** Open (creating it when writable) the store at `root`, repairing any interrupted write first. */
  static async open(root: string, options: FileStoreOptions = {}): Promise<FileStore> {
    const absRoot = path.resolve(root);
    const readOnly = options.readOnly === true;
    if (!readOnly) await mkdir(absRoot, { recursive: true });
    const realRoot = await realpath(absRoot);
    const recovery = readOnly
      ? { removedTemps: 0, migrated: 0, repointed: [], quarantined: [] }
      : await recoverTree(absRoot);
    const ctx = {
      root: absRoot,
      realRoot,
      now: options.now ?? (() => new Date()),
      writeCheck: options.writeCheck,
      archiveCheck: options.archiveCheck,
    };
    return new FileStore(ctx, readOnly, recovery);
  }

  get readOnly(): boolean {
    return this.#readOnly;
  }

  async current(docPath: string): Promise<DocState | null> {
    const key = containsDotDot(docPath) ? docPath : canonicalPath(docPath);
    const cached = this.#cache.get(key);
    if (cached !== undefined) return cached;
    const generation = this.#cache.generation(key);
    const doc = await readCurrent(this.#ctx, docPath);
    if (doc !== null) this.#cache.fill(key, doc, generation);
    return doc;
  }

  version(docPath: string, version: number): Promise<StoredVersion | null> {
    return readVersion(this.#ctx, docPath, version);
  }

  isDirectory(dirPath: string): Promise<boolean> {
    return isDirectoryPath(this.#ctx, dirPath);
  }

  /**
   * Immediate children by name in byte order, the whole folder or one window of
   * it (`after`, `admit`, `limit`); ERR_NOT_FOUND when `dirPath` is not a directory.
   */
  list(dirPath: string, window: ListingWindow): Promise<DirEntry[]> {
    return listDirectory(this.#ctx, dirPath, window);
  }

  /** The retained versions and the chain verdict; `reading.signal` stops the chain check between versions. */
  history(docPath: string, reading: HistoryReading = {}): Promise<History | null> {
    return readHistory(this.#ctx, docPath, reading);
  }

  /** PUBLISH with a body. `expectedVersion`: absent = no check, 0 = create-only, N = must be current. */
  publish(
    docPath: string,
    body: Uint8Array,
    metadata: Metadata,
    options: { expectedVersion?: number } = {},
  ): Promise<WriteOutcome> {
    return this.#write(docPath, 'publish', () =>
      writeDocument(this.#ctx, docPath, body, metadata, options.expectedVersion),
    );
  }

  /** APPEND: `expectedVersion` is required and ≥ 1. */
  append(
    docPath: string,
    body: Uint8Array,
    metadata: Metadata,
    options: { expectedVersion: number },
  ): Promise<WriteOutcome> {
    return this.#write(docPath, 'append', () =>
      appendDocument(this.#ctx, docPath, body, metadata, options.expectedVersion),
    );
  }

  archive(docPath: string): Promise<ArchiveOutcome> {
    return this.#transition(docPath, true);
  }

  /** PUBLISH with an empty body: a no-op on a live document, not-found on a missing one. */
  unarchive(docPath: string): Promise<ArchiveOutcome> {
    return this.#transition(docPath, false);
  }

  /** Every current document, archived ones included and flagged, in path byte order per directory. */
  documents(): AsyncIterable<DocState> {
    return walkDocuments(this.#ctx);
  }

  /** Called after each durable change; returns the unsubscribe function. */
  onChange(listener: ChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Wait for in-flight writes; the store stays usable, nothing is held open between calls. */
  async close(): Promise<void> {
    await this.#locks.drain();
    this.#listeners.clear();
  }

  #checkWritable(docPath: string): string {
    if (this.#readOnly) throw new StoreError('ERR_READ_ONLY', 'store is read-only');
    return containsDotDot(docPath) ? docPath : canonicalPath(docPath);
  }

  async #write(docPath: string, op: ChangeOp, run: () => Promise<WriteOutcome>): Promise<WriteOutcome> {
    const key = this.#checkWritable(docPath);
    const outcome = await this.#locks.run(key, async () => {
      this.#cache.invalidate(key);
      return run();
    });
    if (outcome.kind === 'created') {
      const { version } = outcome;
      this.#cache.set(version.path, { path: version.path, current: version, archived: false });
      this.#emit({
        op,
        path: version.path,
        version: version.version,
        doc: { path: version.path, current: version, archived: false },
      });
    }
    return outcome;
  }

  async #transition(docPath: string, archived: boolean): Promise<ArchiveOutcome> {
    const key = this.#checkWritable(docPath);
    return this.#locks.run(key, async () => {
      this.#cache.invalidate(key);
      const outcome = await setArchived(this.#ctx, docPath, archived);
      if (outcome.changed) {
        const doc = await readCurrent(this.#ctx, docPath);
        if (doc !== null) this.#cache.set(doc.path, doc);
        const op = archived ? 'archive' : 'unarchive';
        if (doc !== null) this.#emit({ op, path: doc.path, version: outcome.version, doc });
      }
      return outcome;
    });
  }

  #emit(event: ChangeEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch {
        // A listener's failure must not turn a durable write into a reported failure.
      }
    }
  }
}
