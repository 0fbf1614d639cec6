/**
 * Metadata grammar and the keys the protocol gives meaning to (Mark SPEC §5,
 * protocol/protocol.go). Keys are `[a-z0-9-]+`; values are UTF-8 without CR or LF.
 */

export type Metadata = Record<string, string>;

const metaKeyPattern = /^[a-z0-9-]+$/;

export function isValidMetaKey(key: string): boolean {
  return metaKeyPattern.test(key);
}

/**
 * A value is valid when it has no CR and no LF and is well-formed Unicode. Invalid
 * UTF-8 on the wire never reaches this point: request decoding is strict.
 */
export function isValidMetaValue(value: string): boolean {
  return !value.includes('\r') && !value.includes('\n') && value.isWellFormed();
}

/** Keys consumed by the handler and never stored (handler.controlKeys). */
export const controlKeys: ReadonlySet<string> = new Set([
  'auth',
  'expected-version',
  'if-none-match',
  'if-modified-since',
]);

/**
 * Keys a server sets itself: rejected on write and never echoed as publisher
 * metadata (protocol.reservedMetadataKeys), plus the store's own `previous-hash`.
 */
export const reservedMetaKeys: ReadonlySet<string> = new Set([
  'version',
  'modified',
  'etag',
  'content-hash',
  'current-version',
  'server-version',
  'your-version',
  'total',
  'current',
  'chain-valid',
  'chain-error',
  'archived',
  'entries',
  'matches',
  'match',
  'status',
  'previous-hash',
]);

/** Open Knowledge Format keys, stored bare in the version frontmatter; the rest get `meta.`. */
export const okfKeys: ReadonlySet<string> = new Set(['type', 'title', 'description', 'resource', 'tags', 'timestamp']);

/** The `type` given to a document published without one (protocol.OKFDefaultType). */
export const okfDefaultType = 'Document';

/** `SplitTags`: a comma list, each tag trimmed, empties dropped, order kept. */
export function splitTags(raw: string | undefined): string[] {
  if (raw === undefined) return [];
  return raw
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag.length > 0);
}

/** `ParseImportance`: a float in [0, 1]; anything else (absent, NaN, out of range) is 0.5. */
export function parseImportance(raw: string | undefined): number {
  const fallback = 0.5;
  if (raw === undefined) return fallback;
  const trimmed = raw.trim();
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed)) return fallback;
  const value = Number(trimmed);
  if (!Number.isFinite(value) || value < 0 || value > 1) return fallback;
  return value;
}

/**
 * Size of publisher metadata as the limit counts it: Σ len(key) + len(value) in
 * UTF-8 bytes, with tags counted in their stored list form `[a, b]`.
 */
export function serializedMetaSize(meta: Metadata): number {
  let size = 0;
  for (const [key, value] of Object.entries(meta)) {
    const stored = key === 'tags' ? `[${splitTags(value).join(', ')}]` : value;
    size += Buffer.byteLength(key) + Buffer.byteLength(stored);
  }
  return size;
}
