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

/**
 * The listing of a directory; ERR_NOT_FOUND when the path is not a directory (Go `ListEntries`).
 * Rejects with `signal`'s reason once it aborts (the client gave up, src/transport/peer-abandonment.ts):
 * entries not yet checked are then not checked, so an abandoned listing stops within one batch.
 */
export async function listDirectory(
  ctx: StoreRoot,
  reqPath: string,
  includeArchived: boolean,
  signal?: AbortSignal,
): Promise<DirEntry[]> {
  const abs = absolutePath(ctx.root, reqPath);
  const real = abs === null ? null : await resolveExisting(ctx.realRoot, abs);
  if (real === null || !(await isDirectory(real))) throw notFound(reqPath);
  const checked = await boundedMap(await readChildren(real), entriesCheckedAtOnce, async (child) => {
    signal?.throwIfAborted();
    return child.isDir ? directoryEntry(real, child.name, includeArchived) : documentEntry(real, child.name);
  });
  signal?.throwIfAborted();
  const out: DirEntry[] = [];
  for (const result of checked) {
    if (!result.ok) throw result.error;
    const entry = result.value;
    if (entry !== null && (includeArchived || !entry.archived)) out.push(entry);
  }
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
