/**
 * Reading one document's files: its version numbers, one version's bytes, its
 * archive state, and which version the current pointer names. Only regular
 * files count as versions: a planted symlink is never a version (Go
 * `perDocVersionNumber`).
 */
import type { Dirent, Stats } from 'node:fs';
import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { maxBodyBytes, maxStoreFrontmatterBytes } from '../../protocol/limits.ts';
import { integrity, isMissing } from './errors.ts';
import {
  archiveStateName,
  parseSymlinkTarget,
  parseVersionFileName,
  versionFileName,
  type DocLocation,
} from './paths.ts';
import { legacyArchivedFlag } from './stored-format.ts';

/** Largest stored file a reader accepts (`MaxBodyLength + MaxStoreFrontmatter`). */
export const maxStoredFileBytes = maxBodyBytes + maxStoreFrontmatterBytes;

export type VersionFile = { raw: Buffer; mtime: Date };

/** Retained version numbers, ascending; empty when there is no history. */
export async function listVersions(docDir: string): Promise<number[]> {
  let entries: Dirent[];
  try {
    entries = await readdir(docDir, { withFileTypes: true });
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
  const versions: number[] = [];
  for (const entry of entries) {
    const n = entry.isFile() ? parseVersionFileName(entry.name) : 0;
    if (n > 0) versions.push(n);
  }
  return versions.sort((a, b) => a - b);
}

export async function highestVersion(docDir: string): Promise<number> {
  const versions = await listVersions(docDir);
  return versions.at(-1) ?? 0;
}

/** One version's bytes and mtime, or null when it is absent (or not a regular file). */
export async function readVersionFile(docDir: string, version: number): Promise<VersionFile | null> {
  const file = path.join(docDir, versionFileName(version));
  try {
    const info = await lstat(file);
    if (!info.isFile()) return null;
    if (info.size > maxStoredFileBytes) throw integrity(`v${version} exceeds size limit`);
    return { raw: await readFile(file), mtime: info.mtime };
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
}

/** The `archive-state` sidecar: true/false, or null when absent. Anything else is an integrity failure. */
export async function readArchiveState(docDir: string): Promise<boolean | null> {
  let data: string;
  try {
    const file = path.join(docDir, archiveStateName);
    const info = await lstat(file);
    if (!info.isFile() || info.size > 'false\n'.length) throw integrity('invalid archive state file');
    data = await readFile(file, 'latin1');
  } catch (err) {
    if (isMissing(err)) return null;
    throw err;
  }
  if (data === 'true\n') return true;
  if (data === 'false\n') return false;
  throw integrity(`invalid archive state ${JSON.stringify(data)}`);
}

/** `effectiveArchived`: the sidecar when present, else the legacy flag of the tip. */
export async function effectiveArchived(docDir: string, tipRaw: Uint8Array): Promise<boolean> {
  return (await readArchiveState(docDir)) ?? legacyArchivedFlag(tipRaw);
}

export type CurrentPointer =
  | { kind: 'missing' }
  | { kind: 'directory' }
  | { kind: 'file' }
  | { kind: 'symlink'; version: number };

/**
 * What sits at the document's own path. For a symlink in the canonical form
 * `versions/<base>/v<N>`, `version` is N; any other target gives 0.
 */
export async function readCurrentPointer(loc: DocLocation): Promise<CurrentPointer> {
  let info: Stats;
  try {
    info = await lstat(loc.currentAbs);
  } catch (err) {
    if (isMissing(err)) return { kind: 'missing' };
    throw err;
  }
  if (info.isDirectory()) return { kind: 'directory' };
  if (!info.isSymbolicLink()) return { kind: 'file' };
  const target = await readlink(loc.currentAbs);
  return { kind: 'symlink', version: parseSymlinkTarget(loc.base, target) };
}

/**
 * The version readers see as current: the one the pointer names when it is a
 * canonical link to an existing version (so a write becomes visible exactly when
 * its pointer swaps), else the highest retained version (Go's rule). 0 = not a
 * document: no history, or nothing / a directory at the path.
 */
export async function visibleVersion(loc: DocLocation): Promise<number> {
  const pointer = await readCurrentPointer(loc);
  if (pointer.kind === 'missing' || pointer.kind === 'directory') return 0;
  if (pointer.kind === 'symlink' && pointer.version > 0 && (await isVersionFile(loc.docDir, pointer.version)))
    return pointer.version;
  return highestVersion(loc.docDir);
}

async function isVersionFile(docDir: string, version: number): Promise<boolean> {
  try {
    return (await lstat(path.join(docDir, versionFileName(version)))).isFile();
  } catch (err) {
    if (isMissing(err)) return false;
    throw err;
  }
}
