/**
 * LIST's view of a directory (Mark SPEC §6.2; Go `handler/list.go` `listDir`, `dirHasDocument`):
 * immediate children in byte order, without dot-files, the `versions` directory
 * and non-documents (files without history). Archived documents, and
 * directories with no live document beneath them, appear only when asked for.
 */
import type { Dirent } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { isDirectory, resolveExisting } from './containment.ts';
import { highestVersion, readArchiveState, readVersionFile, visibleVersion } from './doc-files.ts';
import type { StoreRoot } from './doc-reader.ts';
import { isMissing, notFound } from './errors.ts';
import { boundedMap } from '../../concurrency/pool.ts';
import { compareBytes } from '../../protocol/byte-order.ts';
import { absolutePath, isHiddenEntry, versionsDirName, type DocLocation } from './paths.ts';
import { legacyArchivedFlag } from './stored-format.ts';
import type { DirEntry } from './types.ts';

type Child = { name: string; isDir: boolean };

/**
 * Entries whose checks run at once. Checking one entry takes about seven
 * filesystem calls in a row (its history, archive state, current pointer,
 * tip), and each call's result waits for a turn of the event loop: one after
 * another, a 250-entry listing needed some 2,000 turns, and while another
 * client's requests kept the loop busy (a turn of milliseconds) it outlasted
 * the broker's deadline (test/security/listing-starvation.test.ts,
 * docs/decisions.md). 32 at once cut the turns about 32-fold; the calls are
 * short, so the libuv pool (4 threads) clears them well within a turn, and a
 * FETCH that misses the cache queues behind at most 32 of them.
 */
const entriesCheckedAtOnce = 32;

/** Whether the request path is a directory inside the root (Go `IsDir`). */
export async function isDirectoryPath(ctx: StoreRoot, reqPath: string): Promise<boolean> {
  const abs = absolutePath(ctx.root, reqPath);
  if (abs === null) return false;
  const real = await resolveExisting(ctx.realRoot, abs);
  return real !== null && (await isDirectory(real));
}

/** Which part of a directory's listing to produce (LIST's page: Mark SPEC §6.2). */
export type ListingWindow = {
  includeArchived: boolean;
  /** Names up to this one (byte order) are skipped unchecked: a cursor's page starts after it. */
  after?: string | null | undefined;
  /**
   * Asked, by name and kind alone, before an entry is checked; false leaves it
   * out unchecked (read-auth needs nothing more: a child is a directory exactly
   * when the directory entry says so).
   */
  admit?: ((name: string, kind: DirEntry['kind']) => boolean) | undefined;
  /** Stop once this many entries are found; the rest of the folder is not checked. */
  limit?: number | undefined;
  /**
   * Rejects with its reason once it aborts (the client gave up,
   * src/transport/peer-abandonment.ts): entries not yet checked are then not checked.
   */
  signal?: AbortSignal | undefined;
};

/**
 * The listing of a directory in byte order, the first `limit` entries of the
 * window; ERR_NOT_FOUND when the path is not a directory (Go `ListEntries`).
 *
 * Go's `listDir` checks every entry before a page is cut from them. Checking
 * is nearly all of a listing's cost (about seven filesystem calls per entry,
 * against one readdir for the folder), so checks start in order and stop
 * starting once the window is full: a page of a 20,000-entry
 * folder checks about a page's worth, not the folder (docs/benchmarks.md,
 * "LIST of large folders"). The entries produced are the same ones.
 */
export async function listDirectory(ctx: StoreRoot, reqPath: string, window: ListingWindow): Promise<DirEntry[]> {
  const { includeArchived, after = null, admit, limit = Number.POSITIVE_INFINITY, signal } = window;
  const abs = absolutePath(ctx.root, reqPath);
  const real = abs === null ? null : await resolveExisting(ctx.realRoot, abs);
  if (real === null || !(await isDirectory(real))) throw notFound(reqPath);
  const candidates = (await readChildren(real)).filter(
    (child) =>
      (after === null || compareBytes(child.name, after) > 0) &&
      (admit === undefined || admit(child.name, child.isDir ? 'directory' : 'document')),
  );
  // Checks start in order, 32 at a time; once `limit` entries are found, every
  // check not yet started is of an entry after them, so it is skipped.
  let found = 0;
  const checked = await boundedMap(candidates, entriesCheckedAtOnce, async (child) => {
    if (found >= limit) return null;
    signal?.throwIfAborted();
    const entry = child.isDir
      ? await directoryEntry(real, child.name, includeArchived)
      : await documentEntry(real, child.name);
    if (entry !== null && (includeArchived || !entry.archived)) found += 1;
    return entry;
  });
  const out: DirEntry[] = [];
  for (const result of checked) {
    // What lies past the window does not decide the answer, a failed check included.
    if (out.length >= limit) break;
    if (!result.ok) throw result.error;
    const entry = result.value;
    if (entry !== null && (includeArchived || !entry.archived)) out.push(entry);
  }
  signal?.throwIfAborted();
  return out;
}

async function readChildren(dirAbs: string): Promise<Child[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(dirAbs, { withFileTypes: true });
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
  return entries
    .filter((entry) => !isHiddenEntry(entry.name))
    .map((entry) => ({ name: entry.name, isDir: entry.isDirectory() }))
    .sort((a, b) => compareBytes(a.name, b.name));
}

async function directoryEntry(parentAbs: string, name: string, includeArchived: boolean): Promise<DirEntry | null> {
  const childAbs = path.join(parentAbs, name);
  const live = await dirHasDocument(childAbs, false);
  if (live) return { name, kind: 'directory', archived: false };
  if (includeArchived && (await dirHasDocument(childAbs, true))) return { name, kind: 'directory', archived: true };
  return null;
}

async function documentEntry(dirAbs: string, name: string): Promise<DirEntry | null> {
  if (!(await isDocument(dirAbs, name))) return null;
  return { name, kind: 'document', archived: await isArchivedDocument(dirAbs, name) };
}

/** Go `docCandidates.isDocument`: a per-document history with at least one version. */
async function isDocument(dirAbs: string, name: string): Promise<boolean> {
  return (await highestVersion(path.join(dirAbs, versionsDirName, name))) > 0;
}

async function isArchivedDocument(dirAbs: string, name: string): Promise<boolean> {
  const loc = siblingLocation(dirAbs, name);
  const state = await readArchiveState(loc.docDir);
  if (state !== null) return state;
  const version = await visibleVersion(loc);
  const tip = version === 0 ? null : await readVersionFile(loc.docDir, version);
  return tip !== null && legacyArchivedFlag(tip.raw);
}

function siblingLocation(dirAbs: string, name: string): DocLocation {
  const versionsDir = path.join(dirAbs, versionsDirName);
  return {
    canonical: '',
    dirAbs,
    base: name,
    currentAbs: path.join(dirAbs, name),
    versionsDir,
    docDir: path.join(versionsDir, name),
  };
}

/**
 * Go `dirHasDocument`: whether the subtree holds a document a listing would
 * show. Files first, so a qualifying file answers before any recursion.
 */
export async function dirHasDocument(dirAbs: string, includeArchived: boolean): Promise<boolean> {
  const children = await readChildren(dirAbs);
  for (const child of children) {
    if (child.isDir || !(await isDocument(dirAbs, child.name))) continue;
    if (includeArchived || !(await isArchivedDocument(dirAbs, child.name))) return true;
  }
  for (const child of children) {
    if (child.isDir && (await dirHasDocument(path.join(dirAbs, child.name), includeArchived))) return true;
  }
  return false;
}
