/**
 * Writes a world store as a first PUBLISH leaves it (Mark SPEC §9.3, §9.4):
 * `versions/<name>/v1` holding serializeVersion's bytes and the document's
 * own path a relative symlink to it. Names and bytes come from the store's
 * own `locate`, `symlinkTarget` and `serializeVersion`, so the layout stays
 * the store's; what it skips is the store's write path (checks, fsyncs and
 * the durable pointer swap of src/world/store/doc-writer.ts), which benches
 * that pre-lay thousands of documents cannot afford and do not measure.
 */
import { mkdir, symlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Metadata } from '../../src/protocol/metadata.ts';
import { locate, symlinkTarget, versionFileName } from '../../src/world/store/paths.ts';
import { serializeVersion } from '../../src/world/store/stored-format.ts';

export interface LaidDocument {
  /** Request path, e.g. `/team-0/doc-0.md`. */
  path: string;
  body: string | Uint8Array;
  metadata?: Metadata;
  /** The version file's modification time; the write's own time when absent. */
  modified?: Date;
}

/** Lays one document's v1 and its current pointer under `root`. */
export async function layFirstVersion(root: string, doc: LaidDocument): Promise<void> {
  const loc = locate(root, doc.path);
  if (loc === null) throw new Error(`cannot lay ${doc.path}: not a document path`);
  const body = typeof doc.body === 'string' ? Buffer.from(doc.body) : doc.body;
  const file = join(loc.docDir, versionFileName(1));
  await mkdir(loc.docDir, { recursive: true });
  await writeFile(file, serializeVersion(1, null, body, doc.metadata ?? {}));
  if (doc.modified !== undefined) await utimes(file, doc.modified, doc.modified);
  await symlink(symlinkTarget(loc.base, 1), loc.currentAbs);
}

/**
 * Lays documents 0 … count-1, `batch` at a time: enough in flight to keep the
 * disk busy without opening thousands of files at once.
 */
export async function layFirstVersions(
  root: string,
  count: number,
  documentAt: (index: number) => LaidDocument,
  batch = 128,
): Promise<void> {
  for (let start = 0; start < count; start += batch) {
    const indexes = Array.from({ length: Math.min(batch, count - start) }, (_, k) => start + k);
    await Promise.all(indexes.map((index) => layFirstVersion(root, documentAt(index))));
  }
}
