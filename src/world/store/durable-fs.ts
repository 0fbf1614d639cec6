/**
 * The durability steps of a write (Mark SPEC §9.3; Go `protocol/store/store.go`). Each step is ordered so a
 * crash at any instant leaves either the old state or a complete new file:
 *
 * 1. the version is written to a dot-named temp file, its mtime set, fsynced;
 * 2. `link(temp, vN)` publishes it: atomic, and EEXIST if vN already exists, so
 *    a version file is never overwritten and never seen half-written;
 * 3. the per-document directory is fsynced, so the new name survives a crash;
 * 4. the current pointer moves: a temp symlink renamed over it, then its
 *    directory fsynced. Only then is the write acknowledged.
 *
 * A failure in step 3 or 4 must not leave vN behind while the pointer names
 * vN-1: readers would serve vN-1 and writers build on vN (doc-writer.ts
 * `pointAt` removes it again).
 *
 * Temp names are ours to choose: they are transient, and recovery.ts removes
 * the ones a crash leaves (Go's `<doc>.tmp` link too).
 */
import { randomBytes } from 'node:crypto';
import { link, lstat, mkdir, rename, rm, stat, symlink, unlink } from 'node:fs/promises';
import path from 'node:path';
import { syncDir, writeSyncedFile } from '../../files/durable-file.ts';
import { fsCode, isMissing } from './errors.ts';
import { archiveStateName, pointerTempPrefix, versionFileName } from './paths.ts';

export { syncDir };

/**
 * `mkdirAllDurable`: create `dir` and its missing ancestors, fsyncing each parent
 * that gained an entry, so a crash cannot drop the tree while a pointer survives.
 */
export async function mkdirDurable(dir: string): Promise<void> {
  const created: string[] = [];
  for (let p = dir; ; p = path.dirname(p)) {
    if (await exists(p)) break;
    created.push(p);
    if (path.dirname(p) === p) break;
  }
  if (created.length === 0) return;
  await mkdir(dir, { recursive: true });
  for (const p of created.reverse()) await syncDir(path.dirname(p));
}

/**
 * Whether a directory entry is at `p`. A symlink counts as itself (lstat)
 * unless `followLinks`, when a dangling one counts as missing (stat).
 */
export async function exists(p: string, { followLinks = false } = {}): Promise<boolean> {
  try {
    await (followLinks ? stat(p) : lstat(p));
    return true;
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}

function tempName(prefix: string): string {
  return `${prefix}${process.pid}-${randomBytes(6).toString('hex')}`;
}

function writeSyncedTemp(tempPath: string, bytes: Uint8Array, mtime: Date | null): Promise<void> {
  return writeSyncedFile(tempPath, bytes, { mode: 0o644, umask: true, ...(mtime === null ? {} : { mtime }) });
}

/**
 * Steps 1-2: publish `v<version>` in `docDir` with `bytes`. Returns false when
 * that version already exists (a lost race, or a crash left it: never overwrite).
 * Step 3 is the caller's, inside its rollback (doc-writer.ts `pointAt`).
 */
export async function createVersionFile(
  docDir: string,
  version: number,
  bytes: Uint8Array,
  mtime: Date,
): Promise<boolean> {
  const tempPath = path.join(docDir, tempName(`.v${version}.tmp-`));
  try {
    await writeSyncedTemp(tempPath, bytes, mtime);
    await link(tempPath, path.join(docDir, versionFileName(version)));
  } catch (err) {
    await rm(tempPath, { force: true }).catch(() => undefined);
    if (fsCode(err) === 'EEXIST') return false;
    throw err;
  }
  // vN exists now: the temp name is a second link to the same file. Failing to remove it leaves a
  // dot-name that start-up recovery removes, not a failed write (the version is already there).
  await rm(tempPath, { force: true }).catch(() => undefined);
  return true;
}

/**
 * Step 4 (`swapCurrent`): point `currentAbs` at `target` without it ever being missing. The temp
 * link gets a fresh dot-name in `historyDir`, the document's `versions/<name>` folder, and is renamed
 * across to the document (a symlink's relative target is read from where it sits, so it names the
 * same version there). No request path reaches a history folder (a `versions` segment is refused,
 * src/world/handler/write-guard.ts), so nothing a publisher creates can take the link's place. Go
 * names it `<current>.tmp` beside the document, where a folder of that name made every later write
 * fail (test/world/temp-link-squat.test.ts).
 */
export async function swapSymlink(currentAbs: string, target: string, historyDir: string): Promise<void> {
  const tempLink = path.join(historyDir, tempName(pointerTempPrefix));
  await symlink(target, tempLink);
  try {
    await rename(tempLink, currentAbs);
  } catch (err) {
    await removeIfPresent(tempLink).catch(() => undefined);
    throw err;
  }
  await syncDir(path.dirname(currentAbs));
}

export async function removeIfPresent(p: string): Promise<void> {
  try {
    await unlink(p);
  } catch (err) {
    if (!isMissing(err)) throw err;
  }
}

/** `writeArchiveState`: `true\n` or `false\n` through a synced temp file and a rename. */
export async function writeArchiveState(docDir: string, archived: boolean): Promise<void> {
  const tempPath = path.join(docDir, tempName('.archive-state-'));
  try {
    await writeSyncedTemp(tempPath, Buffer.from(`${archived}\n`), null);
    await rename(tempPath, path.join(docDir, archiveStateName));
  } finally {
    await rm(tempPath, { force: true });
  }
  await syncDir(docDir);
}
