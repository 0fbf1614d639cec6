import { maxRequestPathBytes } from './limits.ts';

/**
 * Request paths (Mark SPEC §3, protocol.ValidateRequestPath): non-empty, absolute,
 * at most 4087 bytes, and free of NUL, other C0 controls (TAB allowed) and DEL.
 * Paths are case-sensitive and may contain spaces.
 */
export function isValidRequestPath(path: string): boolean {
  if (path.length === 0 || !path.startsWith('/')) return false;
  if (Buffer.byteLength(path) > maxRequestPathBytes) return false;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if ((c < 0x20 && c !== 0x09) || c === 0x7f) return false;
  }
  return true;
}

/** True when any `/`-separated segment is exactly `..` (checked before auth, so scope cannot be escaped). */
export function hasDotDotSegment(path: string): boolean {
  return path.split('/').includes('..');
}

/**
 * Go's `path.Clean("/" + p)`: collapses `//`, drops `.` segments and trailing
 * slashes, resolves `..` (callers reject `..` first, so this never climbs).
 */
export function canonicalPath(path: string): string {
  const out: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment === '..') out.pop();
    else out.push(segment);
  }
  return `/${out.join('/')}`;
}

/** The directory beside a document that holds its history (Mark SPEC §9.3): a store's name, never a listed entry. */
export const versionsDirName = 'versions';

/**
 * Mark SPEC LIST "Excluded": a dot-file (or dot directory) and the `versions` directory never appear
 * in a listing. The world's LIST filters its entries by this rule and the broker's doctor skips what it
 * hides, so the two cannot drift apart.
 */
export function isHiddenEntry(name: string): boolean {
  return name.startsWith('.') || name === versionsDirName;
}

/**
 * True when a segment of the path is the history folder's name (`/docs/versions/a.md`): the path names
 * the store's own layout, not a document, whatever lies there (docs/decisions.md, 2026-12-07).
 */
export function hasVersionsSegment(path: string): boolean {
  return path.split('/').includes(versionsDirName);
}

/**
 * True when any segment of a path is a hidden entry (`/.well-known/x.md`, `/a/.drafts/b.md`,
 * `/a/versions/b.md`): no walk of a world's listings reaches it, however deep.
 */
export function hasHiddenSegment(path: string): boolean {
  return path.split('/').some((segment) => segment !== '' && isHiddenEntry(segment));
}

const hashPathPattern = /^\/sha256-[0-9a-f]{64}$/;

/** `/sha256-<64 lower-case hex>`: a content-addressed FETCH. Upper-case hex is not a hash path. */
export function isHashPath(path: string): boolean {
  return hashPathPattern.test(path);
}

/** The `sha256-…` name from a hash path. */
export function hashFromPath(path: string): string {
  return path.slice(1);
}

export type VersionedPath = { base: string; version: number };

/**
 * Splits `/doc.md/vN` (N an integer ≥ 1, as strconv.Atoi reads it) into its base
 * path and version. `v0`, `v-1` and `vx` are ordinary path segments.
 */
export function splitVersionSuffix(path: string): VersionedPath | null {
  const slash = path.lastIndexOf('/');
  if (slash <= 0) return null;
  const match = /^v([+-]?\d+)$/.exec(path.slice(slash + 1));
  if (match === null) return null;
  const version = Number(match[1]);
  if (!Number.isSafeInteger(version) || version < 1) return null;
  return { base: path.slice(0, slash), version };
}

/** `path.Base`: the last element, `/` for the root. */
export function baseName(path: string): string {
  const trimmed = path.replace(/\/+$/, '');
  if (trimmed === '') return '/';
  return trimmed.slice(trimmed.lastIndexOf('/') + 1);
}

/** The parent directory of a canonical path (`/` for top-level entries). */
export function parentPath(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash <= 0 ? '/' : path.slice(0, slash);
}
