/**
 * The bytes of one stored version (Mark SPEC §9.4, Go `storefmt.SerializeVersion`,
 * `ExtractMetadata`, `InspectStoredVersion`). Every backend writes exactly these
 * bytes so etags, the hash chain and a volume moved between the Go and TS servers
 * stay identical:
 *
 *   ---\n
 *   version: <N>\n
 *   archived: false\n
 *   previous-hash: sha256-<hex of v(N-1) bytes>\n      (N > 1 only)
 *   <publisher keys, sorted; OKF keys bare, tags as [a, b], others as meta.<key>>
 *   ---\n
 *   <body>
 */
import { maxVersionNumber } from '../../protocol/limits.ts';
import { okfKeys, type Metadata } from '../../protocol/metadata.ts';
import { prefixedSha256, sha256Hex } from '../../protocol/token.ts';
import { formatTagsList, parseTagsList, storeReservedKeys, validateMeta } from './publisher-meta.ts';

export const metaPrefix = 'meta.';
const fence = '---\n';
const openFence = Buffer.from(fence);
const closeFence = Buffer.from('\n---\n');

/** Go `SerializeVersion`. `previousRaw` is v(N-1)'s complete stored bytes, required for N > 1. */
export function serializeVersion(
  version: number,
  previousRaw: Uint8Array | null,
  body: Uint8Array,
  meta: Metadata,
): Buffer {
  if (!Number.isInteger(version) || version < 1 || version > maxVersionNumber) {
    throw new RangeError(`serialize version: ${version} is outside [1,${maxVersionNumber}]`);
  }
  validateMeta(meta);
  if (version > 1 && (previousRaw === null || previousRaw.length === 0)) {
    throw new RangeError(`serialize v${version}: previous version bytes required for hash chain`);
  }
  let header = `${fence}version: ${version}\narchived: false\n`;
  if (version > 1 && previousRaw !== null) header += `previous-hash: ${prefixedSha256(previousRaw)}\n`;
  for (const key of Object.keys(meta).sort()) header += publisherLine(key, meta[key] ?? '');
  return Buffer.concat([Buffer.from(header + fence), body]);
}

function publisherLine(key: string, value: string): string {
  if (key === 'tags') return `tags: ${formatTagsList(value)}\n`;
  if (okfKeys.has(key)) return `${key}: ${value}\n`;
  return `${metaPrefix}${key}: ${value}\n`;
}

/** `storedETag`: hex SHA-256 of the exact stored bytes, no prefix. */
export function storedEtag(raw: Uint8Array): string {
  return sha256Hex(raw);
}

/** `content-hash`: `sha256-` + hex SHA-256 of the body alone. */
export function contentHash(body: Uint8Array): string {
  return prefixedSha256(body);
}

type StoredSplit = { block: Buffer; body: Buffer };

/**
 * `splitStored`: the block between the fences and the body after them. The stored
 * grammar needs the newline after the closing fence, so the wire's closed-at-EOF
 * form does not count; no fence at all is not a stored version either.
 */
export function splitStored(raw: Uint8Array): StoredSplit | null {
  const bytes = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
  if (bytes.length < openFence.length || !bytes.subarray(0, openFence.length).equals(openFence)) return null;
  const inner = bytes.subarray(openFence.length);
  const end = inner.indexOf(closeFence);
  if (end < 0) return null;
  return { block: inner.subarray(0, end), body: inner.subarray(end + closeFence.length) };
}

/** `ExtractBody`: the content after the store frontmatter, or all of it when there is none. */
export function extractBody(raw: Uint8Array): Buffer {
  const split = splitStored(raw);
  return split === null ? Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength) : split.body;
}

function blockLines(raw: Uint8Array): string[] | null {
  const split = splitStored(raw);
  return split === null ? null : split.block.toString('utf8').split('\n');
}

/** Go `strings.Cut(line, ": ")`. */
export function cutField(line: string): [string, string] | null {
  const at = line.indexOf(': ');
  return at < 0 ? null : [line.slice(0, at), line.slice(at + 2)];
}

/**
 * `ExtractMetadata`: bare publisher keys. OKF fields read bare, others under
 * `meta.`, store fields and unknown bare keys skipped; tags come back as `a,b`.
 * An older `meta.tags` reads as stored.
 */
export function extractMetadata(raw: Uint8Array): Metadata {
  const meta: Metadata = {};
  for (const line of blockLines(raw) ?? []) {
    const field = cutField(line);
    if (field === null) continue;
    const key = field[0].trim();
    const value = field[1].replace(/\r+$/, '');
    if (storeReservedKeys.has(key)) continue;
    if (key.startsWith(metaPrefix)) {
      const bare = key.slice(metaPrefix.length);
      if (!storeReservedKeys.has(bare)) meta[bare] = value;
    } else if (key === 'tags') {
      meta.tags = parseTagsList(value);
    } else if (okfKeys.has(key)) {
      meta[key] = value;
    }
  }
  return meta;
}

/** `storedField`: one loosely spelled header field, trimmed; the strict grammar is `inspectStoredVersion`. */
function looseField(raw: Uint8Array, wanted: string): string | null {
  for (const line of blockLines(raw) ?? []) {
    const field = cutField(line);
    if (field !== null && field[0].trim() === wanted) return field[1].trim();
  }
  return null;
}

/** `ExtractPreviousHash`: the chain link, or "" when absent. */
export function extractPreviousHash(raw: Uint8Array): string {
  return looseField(raw, 'previous-hash') ?? '';
}

/** `IsArchived`: the legacy archived flag of a tip written before `archive-state` existed. */
export function legacyArchivedFlag(raw: Uint8Array): boolean {
  return looseField(raw, 'archived') === 'true';
}

/**
 * `storefmt.JoinContent` (Mark SPEC §6.6): existing + "\n" only when existing
 * does not already end in one + appended. Returns null past `maxBytes`.
 */
export function joinContent(existing: Uint8Array, appended: Uint8Array, maxBytes: number): Buffer | null {
  if (appended.length === 0) return Buffer.from(existing);
  const needsNewline = existing.length > 0 && existing[existing.length - 1] !== 0x0a;
  const total = existing.length + (needsNewline ? 1 : 0) + appended.length;
  if (total > maxBytes) return null;
  return Buffer.concat(needsNewline ? [existing, Buffer.from('\n'), appended] : [existing, appended]);
}
