/**
 * Where a document lives on disk (Mark SPEC §9.3; Go `protocol/store/paths.go`).
 *
 * The history sits in a `versions/` directory beside the document, one
 * sub-directory per document, and the document itself is a relative symlink
 * resolved from its own directory:
 *
 *   root/docs/a.md                   → symlink "versions/a.md/v3"
 *   root/docs/versions/a.md/v1 v2 v3
 *   root/docs/versions/a.md/archive-state
 *
 * Request paths are slash paths; the store works on canonical ones
 * (`path.Clean("/" + p)`), and a `..` segment never reaches the disk.
 */
import path from 'node:path';
import posix from 'node:path/posix';
import { canonicalPath, hasDotDotSegment, isHiddenEntry, versionsDirName } from '../../protocol/paths.ts';

export { isHiddenEntry, versionsDirName };
export const archiveStateName = 'archive-state';

export type DocLocation = {
  /** Canonical request path, e.g. `/docs/a.md`. */
  canonical: string;
  /** Directory holding the document, absolute. */
  dirAbs: string;
  /** The document's file name, e.g. `a.md`. */
  base: string;
  /** The current pointer (symlink), absolute. */
  currentAbs: string;
  /** `<dirAbs>/versions`. */
  versionsDir: string;
  /** `<versionsDir>/<base>`: the per-document history. */
  docDir: string;
};

/** `storefmt.ContainsDotDot`: any segment equal to `..`. */
export const containsDotDot = hasDotDotSegment;

export { canonicalPath };

/** The root-relative form, `''` for the root; null for a path with `..`. */
export function relativePath(reqPath: string): string | null {
  if (containsDotDot(reqPath)) return null;
  return canonicalPath(reqPath).slice(1);
}

/** The on-disk location of a document; null for `..` paths and for the root itself. */
export function locate(root: string, reqPath: string): DocLocation | null {
  const rel = relativePath(reqPath);
  if (rel === null || rel === '') return null;
  const dirAbs = path.join(root, posix.dirname(rel));
  const base = posix.basename(rel);
  const versionsDir = path.join(dirAbs, versionsDirName);
  return {
    canonical: `/${rel}`,
    dirAbs,
    base,
    currentAbs: path.join(dirAbs, base),
    versionsDir,
    docDir: path.join(versionsDir, base),
  };
}

/** The absolute path of a request path (a document or directory), or null for `..`. */
export function absolutePath(root: string, reqPath: string): string | null {
  const rel = relativePath(reqPath);
  return rel === null ? null : path.join(root, rel);
}

/** `newVersionSymlinkTarget`: the relative target of the current pointer. */
export function symlinkTarget(base: string, version: number): string {
  return posix.join(versionsDirName, base, versionFileName(version));
}

export function versionFileName(version: number): string {
  return `v${version}`;
}

/**
 * A per-document version file name `v<N>`, N ≥ 1, in canonical decimal; 0 for
 * anything else (temp files, `archive-state`, stray names).
 */
export function parseVersionFileName(name: string): number {
  if (!/^v[1-9][0-9]*$/.test(name)) return 0;
  const n = Number(name.slice(1));
  return Number.isSafeInteger(n) ? n : 0;
}

/** The version a canonical symlink target names (`versions/<base>/v<N>`), or 0. */
export function parseSymlinkTarget(base: string, target: string): number {
  const prefix = `${versionsDirName}/${base}/`;
  return target.startsWith(prefix) ? parseVersionFileName(target.slice(prefix.length)) : 0;
}

/**
 * Temp names an interrupted write leaves in a document's history folder: a version (`.v<N>.tmp-`, also
 * Go's), the archive state (`.archive-state-`) or the pointer's temp link (`.pointer-`).
 */
export function isVersionTempName(name: string): boolean {
  return /^\.v[0-9]+\.tmp-/.test(name) || name.startsWith('.archive-state-') || name.startsWith(pointerTempPrefix);
}

/**
 * The pointer swap's temp link: a dot-name made inside the document's history folder
 * (durable-fs.ts `swapSymlink`), which no request path reaches (a `versions` segment is refused).
 */
export const pointerTempPrefix = '.pointer-';

/**
 * The Go store's temp link beside a document, `<name>.tmp` (Go `swapCurrent`). This server no
 * longer makes it, but start-up recovery removes one a crash left, and a write keeps room for it
 * and refuses a folder of that name (below), so the Go server can still write every document.
 */
const goTempLinkSuffix = '.tmp';

/**
 * NAME_MAX: the longest file name Linux filesystems (ext4, xfs, btrfs, tmpfs) hold, in bytes of the
 * UTF-8 name, not characters (`getconf NAME_MAX /`; longer names fail with ENAMETOOLONG).
 */
const maxNameBytes = 255;

/**
 * Why a write to `reqPath` cannot be stored, or null: a folder name over NAME_MAX, or a document name
 * that leaves no room for the Go server's temp link (`<name>.tmp`, Go `swapCurrent`; docs/decisions.md).
 */
export function overlongNameProblem(reqPath: string): string | null {
  const segments = reqPath.split('/').filter((segment) => segment !== '');
  const maxDocumentBytes = maxNameBytes - goTempLinkSuffix.length;
  for (const [i, segment] of segments.entries()) {
    const bytes = Buffer.byteLength(segment);
    if (bytes > maxNameBytes)
      return `a path segment is longer than ${maxNameBytes} bytes (${bytes} bytes of UTF-8), more than a file name on disk can hold; shorten it`;
    if (i === segments.length - 1 && bytes > maxDocumentBytes)
      return `the document name is longer than ${maxDocumentBytes} bytes (${bytes} bytes of UTF-8): a world may need ${goTempLinkSuffix.length} more for a temporary name while it writes (the Go server does), within the ${maxNameBytes} bytes a file name on disk can hold; shorten it`;
  }
  return null;
}

/** True when `name` is the Go server's temp link of a document beside it (`<name>.md.tmp`). */
export function isGoTempLinkName(name: string): boolean {
  return name.endsWith(`.md${goTempLinkSuffix}`);
}

/**
 * Why a write to `reqPath` is refused, or null: a folder named like the Go server's temp link of a
 * document (`<name>.md.tmp`). Go's swap cannot replace a folder there, so every later write of
 * `<name>.md` by the Go server would fail on this store (docs/decisions.md). Only folders: a last
 * segment of that name is no folder, and the document contract refuses it as not ending in `.md`
 * (write-guard.ts `checkDocumentContract`).
 */
export function goTempLinkFolderProblem(reqPath: string): string | null {
  const folders = reqPath.split('/').slice(0, -1);
  return folders.some(isGoTempLinkName)
    ? `a folder name ending in ".md${goTempLinkSuffix}" is reserved: it is the temporary name of the document beside it while a world writes it; use another folder name`
    : null;
}

/** True when `abs` is `root` or beneath it (both already resolved). */
export function isContained(abs: string, root: string): boolean {
  return abs === root || abs.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}
