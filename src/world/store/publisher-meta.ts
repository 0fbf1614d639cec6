/**
 * Publisher metadata: extraction from a request, validation, normalisation and
 * the OKF type default (Mark SPEC §6.4, §8; Go `handler.extractPublisherMeta`
 * and `storefmt/meta.go`). Pure functions; the handler and the store share them so
 * the rules cannot drift between the wire check and the stored bytes.
 *
 * Keys are visited in sorted order, so when several keys are bad the error names
 * the first in byte order (Go visits its map in random order; any one is correct).
 */
import path from 'node:path/posix';
import { maxMetaBytes, maxMetaKeys } from '../../protocol/limits.ts';
import {
  controlKeys,
  isValidMetaKey,
  isValidMetaValue,
  okfDefaultType,
  reservedMetaKeys,
  serializedMetaSize,
  splitTags,
  type Metadata,
} from '../../protocol/metadata.ts';
import { StoreError } from './errors.ts';
import { goQuote } from '../../protocol/go-quote.ts';

/** `storefmt.reservedMetaKeys`: fields the store owns inside a stored version. */
export const storeReservedKeys: ReadonlySet<string> = new Set(['version', 'previous-hash', 'archived']);

/** The key a write carries to prune its history (Go `storefmt/meta.go`). */
export const retentionKey = 'retention';

const invalidMetaPrefix = 'invalid publisher metadata: ';

/**
 * `protocol.IsReservedMetadataKey`: the wire-reserved keys. `previous-hash` is
 * not among them; it passes extraction and is refused by `validateMeta` with the
 * store's message, as in Go.
 */
function isWireReserved(key: string): boolean {
  return reservedMetaKeys.has(key) && key !== 'previous-hash';
}

function invalidMeta(message: string): StoreError {
  return new StoreError('ERR_INVALID_METADATA', message);
}

/**
 * Go `handler.extractPublisherMeta`: every request key except the control keys is publisher
 * metadata. Throws ERR_INVALID_METADATA with the exact Go message.
 */
export function extractPublisherMeta(requestMeta: Metadata): Metadata {
  const meta: Metadata = {};
  for (const key of Object.keys(requestMeta).sort()) {
    if (controlKeys.has(key)) continue;
    const value = requestMeta[key] ?? '';
    if (isWireReserved(key)) throw invalidMeta(`metadata key ${goQuote(key)} is reserved`);
    if (!isValidMetaKey(key)) throw invalidMeta(`metadata key ${goQuote(key)} contains invalid characters`);
    if (!isValidMetaValue(value)) throw invalidMeta(`metadata value for key ${goQuote(key)} contains newlines`);
    meta[key] = value;
  }
  if (Object.keys(meta).length > maxMetaKeys) throw invalidMeta(`too many metadata keys (max ${maxMetaKeys})`);
  if (serializedMetaSize(meta) > maxMetaBytes) throw invalidMeta(`metadata too large (max ${maxMetaBytes} bytes)`);
  return meta;
}

/**
 * `storefmt.ValidateMeta`: what the store accepts into a stored version. The
 * store runs it on every write, because APPEND's merge can breach caps that
 * both sides met alone.
 */
export function validateMeta(meta: Metadata): void {
  for (const key of Object.keys(meta).sort()) {
    const value = meta[key] ?? '';
    if (storeReservedKeys.has(key))
      throw invalidMeta(`${invalidMetaPrefix}key ${goQuote(key)} is reserved by the store`);
    if (!isValidMetaKey(key)) throw invalidMeta(`${invalidMetaPrefix}key ${goQuote(key)} contains invalid characters`);
    if (!isValidMetaValue(value)) {
      throw invalidMeta(`${invalidMetaPrefix}value for key ${goQuote(key)} is not valid single-line UTF-8`);
    }
    if (key === retentionKey && parseRetention(value) === null) {
      throw invalidMeta(
        `${invalidMetaPrefix}key ${goQuote(retentionKey)} must be a positive integer, got ${goQuote(value)}`,
      );
    }
  }
  if (Object.keys(meta).length > maxMetaKeys)
    throw invalidMeta(`${invalidMetaPrefix}too many metadata keys (max ${maxMetaKeys})`);
  if (serializedMetaSize(meta) > maxMetaBytes)
    throw invalidMeta(`${invalidMetaPrefix}metadata too large (max ${maxMetaBytes} bytes)`);
}

/**
 * `storefmt.ParseRetention` (Go `strconv.Atoi`, n ≥ 1): an optional sign, decimal
 * digits, within int64. Returns null for anything else.
 */
export function parseRetention(value: string): number | null {
  if (!/^[+-]?[0-9]+$/.test(value)) return null;
  const big = BigInt(value);
  if (big < 1n || big > 9_223_372_036_854_775_807n) return null;
  return big > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(big);
}

/** `storefmt.RetentionValue`: the declared retention, or 0 when absent or unparsable. */
export function retentionValue(meta: Metadata): number {
  const raw = meta[retentionKey];
  return raw === undefined ? 0 : (parseRetention(raw) ?? 0);
}

/** `storefmt.FormatTagsList`: `"a, b"` → `"[a, b]"`; empty input → `"[]"`. */
export function formatTagsList(csv: string): string {
  return `[${splitTags(csv).join(', ')}]`;
}

/** `parseTagsList`: the stored flow list (or an older bare string) back to `a,b`. */
export function parseTagsList(stored: string): string {
  let inner = stored.trim();
  if (inner.startsWith('[') && inner.endsWith(']')) inner = inner.slice(1, -1);
  return splitTags(inner).join(',');
}

/** `storefmt.NormalizeMetadata`: metadata as it will read back after being stored. */
export function normalizeMetadata(meta: Metadata): Metadata {
  const normalized = { ...meta };
  if (normalized.tags !== undefined) normalized.tags = parseTagsList(formatTagsList(normalized.tags));
  return normalized;
}

/** `storefmt.MetaEqual`: same keys, same values (empty equals absent). */
export function metaEqual(a: Metadata, b: Metadata): boolean {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && b[key] === a[key]);
}

/**
 * Go `storefmt.ApplyOKFTypeDefault`: a document published without a
 * `type` becomes `type: Document`, except the reserved OKF files `index.md` and
 * `log.md`. Always returns a copy.
 */
export function applyOkfTypeDefault(docPath: string, meta: Metadata): Metadata {
  const base = path.basename(docPath);
  if (base === 'index.md' || base === 'log.md') return { ...meta };
  if ((meta.type ?? '').trim() !== '') return { ...meta };
  return { ...meta, type: okfDefaultType };
}

/**
 * Go `storefmt.PrepareAppendMeta`: the base version's metadata
 * without `retention` (pruning belongs to the write that declares it), overlaid
 * with the request's keys, then typed.
 */
export function prepareAppendMeta(docPath: string, base: Metadata, request: Metadata): Metadata {
  const merged: Metadata = { ...base };
  delete merged[retentionKey];
  Object.assign(merged, request);
  return applyOkfTypeDefault(docPath, merged);
}
