/**
 * Start-up repair of a store that may have stopped mid-write.
 *
 * What an interrupted write can leave, and what happens to it:
 * - a dot-named temp version, archive-state file or pointer link in a history
 *   folder: removed (never visible);
 * - a temp link `<doc>.tmp` beside a document (the Go store's, and this one's
 *   before it moved the link into the history folder): removed;
 * - a complete v(N+1) the pointer does not name yet (crash between `link` and
 *   the pointer swap): ROLLED FORWARD, the pointer moves to it. The file is
 *   complete (it was fsynced before `link` published it atomically) and chained
 *   to vN, so nothing half-written becomes visible; every acknowledged write is
 *   at or below the pointer, so nothing acknowledged is lost. Rolling back would
 *   delete an immutable version, and the Go store already treats the highest
 *   vN as current (`CurrentVersionResult`, `migrateToPerDocDir`), so roll-forward
 *   keeps both implementations agreeing about which version is current. The
 *   write was never acknowledged, which the protocol already allows for (a lost
 *   response: the client reconciles, `ErrOutcomeUnknown`).
 * - a torn unreferenced tip (the Go store writes vN in place, so a crash there
 *   can leave a partial file): moved aside as `.v<N>.torn-<time>`, then the next
 *   one down is considered.
 * Legacy `versions/<name>.v<N>` files are migrated to `versions/<name>/v<N>`.
 */
import { mkdir, readdir, rename } from 'node:fs/promises';
import path from 'node:path';
import { listVersions, readCurrentPointer, readVersionFile } from './doc-files.ts';
import { exists, removeIfPresent, swapSymlink, syncDir } from './durable-fs.ts';
import { isMissing, isStoreError } from './errors.ts';
import {
  isGoTempLinkName,
  isVersionTempName,
  symlinkTarget,
  versionFileName,
  versionsDirName,
  type DocLocation,
} from './paths.ts';
import { extractPreviousHash, storedEtag } from './stored-format.ts';
import { inspectStoredVersion } from './strict-reader.ts';

export type RecoveryReport = { removedTemps: number; migrated: number; repointed: string[]; quarantined: string[] };

export async function recoverTree(root: string): Promise<RecoveryReport> {
  const report: RecoveryReport = { removedTemps: 0, migrated: 0, repointed: [], quarantined: [] };
  await recoverDirectory(root, report);
  const toRequestPath = (abs: string): string => `/${path.relative(root, abs).split(path.sep).join('/')}`;
  return {
    ...report,
    repointed: report.repointed.map(toRequestPath),
    quarantined: report.quarantined.map(toRequestPath),
  };
}

async function recoverDirectory(dirAbs: string, report: RecoveryReport): Promise<void> {
  const entries = await readdir(dirAbs, { withFileTypes: true }).catch((err: unknown) => {
    if (isMissing(err)) return [];
    throw err;
  });
  const hasHistory = entries.some((e) => e.name === versionsDirName && e.isDirectory());
  if (hasHistory) {
    const versionsDir = path.join(dirAbs, versionsDirName);
    report.migrated += await migrateLegacy(versionsDir);
    for (const docDir of await readdir(versionsDir, { withFileTypes: true })) {
      if (docDir.isDirectory()) await repairDocument(location(dirAbs, docDir.name), report);
    }
  }
  for (const entry of entries) {
    // Only a symlink: a folder of that name is a publisher's, never a temp link.
    if (entry.isSymbolicLink() && isGoTempLinkName(entry.name) && hasHistory) {
      await removeIfPresent(path.join(dirAbs, entry.name));
      report.removedTemps += 1;
    } else if (entry.isDirectory() && entry.name !== versionsDirName) {
      await recoverDirectory(path.join(dirAbs, entry.name), report);
    }
  }
}

/** A document's location by its directory; `canonical` holds the absolute path, for the report. */
function location(dirAbs: string, base: string): DocLocation {
  const versionsDir = path.join(dirAbs, versionsDirName);
  const currentAbs = path.join(dirAbs, base);
  return { canonical: currentAbs, dirAbs, base, currentAbs, versionsDir, docDir: path.join(versionsDir, base) };
}

async function repairDocument(loc: DocLocation, report: RecoveryReport): Promise<void> {
  for (const name of await readdir(loc.docDir)) {
    if (!isVersionTempName(name)) continue;
    await removeIfPresent(path.join(loc.docDir, name));
    report.removedTemps += 1;
  }
  const pointer = await readCurrentPointer(loc);
  if (pointer.kind === 'directory') return;
  const versions = await listVersions(loc.docDir);
  const linked = pointer.kind === 'symlink' && versions.includes(pointer.version) ? pointer.version : 0;
  while ((versions.at(-1) ?? 0) > linked && !(await isSoundTip(loc.docDir, versions))) {
    const torn = versions.pop() ?? 0;
    await rename(path.join(loc.docDir, versionFileName(torn)), path.join(loc.docDir, `.v${torn}.torn-${Date.now()}`));
    report.quarantined.push(`${loc.canonical}/v${torn}`);
  }
  const highest = versions.at(-1) ?? 0;
  if (highest === 0 || (pointer.kind === 'symlink' && pointer.version === highest)) return;
  await swapSymlink(loc.currentAbs, symlinkTarget(loc.base, highest), loc.docDir);
  report.repointed.push(loc.canonical);
}

/** The highest version parses strictly, declares its own number, and chains to the one below it. */
async function isSoundTip(docDir: string, versions: number[]): Promise<boolean> {
  const top = versions.at(-1) ?? 0;
  const file = await readVersionFile(docDir, top);
  if (file === null) return false;
  try {
    if (inspectStoredVersion(file.raw).version !== top) return false;
  } catch (err) {
    if (isStoreError(err, 'ERR_INTEGRITY')) return false;
    throw err;
  }
  if (!versions.includes(top - 1)) return true;
  const below = await readVersionFile(docDir, top - 1);
  return below !== null && extractPreviousHash(file.raw) === `sha256-${storedEtag(below.raw)}`;
}

/** Go `legacyVersion`: `<base>.v<N>` for a visible markdown base, N ≥ 1. */
function parseLegacyName(name: string): { base: string; version: number } | null {
  const at = name.lastIndexOf('.v');
  if (at <= 0) return null;
  const digits = name.slice(at + 2);
  const base = name.slice(0, at);
  if (!/^[0-9]+$/.test(digits) || Number(digits) < 1 || !base.endsWith('.md') || base.startsWith('.')) return null;
  return { base, version: Number(digits) };
}

/** Move legacy flat version files into per-document directories; returns how many moved. */
async function migrateLegacy(versionsDir: string): Promise<number> {
  const byDoc = new Map<string, Map<number, string>>();
  for (const entry of await readdir(versionsDir, { withFileTypes: true })) {
    const legacy = entry.isFile() ? parseLegacyName(entry.name) : null;
    if (legacy === null) continue;
    const versions = byDoc.get(legacy.base) ?? new Map<number, string>();
    // One file per (base, N): the canonical spelling wins over e.g. `doc.md.v01`.
    if (!versions.has(legacy.version) || entry.name === `${legacy.base}.v${legacy.version}`)
      versions.set(legacy.version, entry.name);
    byDoc.set(legacy.base, versions);
  }
  let moved = 0;
  for (const [base, versions] of byDoc) {
    const docDir = path.join(versionsDir, base);
    await mkdir(docDir, { recursive: true });
    for (const [version, name] of versions) {
      const target = path.join(docDir, versionFileName(version));
      if (await exists(target, { followLinks: true })) continue;
      await rename(path.join(versionsDir, name), target);
      moved += 1;
    }
    await syncDir(docDir);
  }
  if (moved > 0) await syncDir(versionsDir);
  return moved;
}
