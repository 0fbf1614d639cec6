import {
  controlKeys,
  isValidMetaKey,
  isValidMetaValue,
  reservedMetaKeys,
  type Metadata,
} from '../../protocol/metadata.ts';
import { parseRfc3339, formatRfc3339 } from '../../protocol/time.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import type { StoredVersion } from '../store/index.ts';
import { notModified, ok } from './respond.ts';

/**
 * Publisher keys as FETCH echoes them (handler.copyPublisherMeta): reserved and
 * control keys and anything outside the key/value grammar are dropped, so a
 * hand-edited store cannot inject server keys into a response.
 */
export function publisherMetadata(stored: Metadata): Metadata {
  const out: Metadata = {};
  for (const [key, value] of Object.entries(stored)) {
    if (reservedMetaKeys.has(key) || controlKeys.has(key)) continue;
    if (!isValidMetaKey(key) || !isValidMetaValue(value)) continue;
    out[key] = value;
  }
  return out;
}

/**
 * FETCH conditionals (Mark SPEC §6.1): `if-none-match` equal to the etag wins;
 * otherwise `if-modified-since`, when it parses as RFC 3339, answers
 * not-modified unless the document changed after it. An unparseable date is ignored.
 */
export function isNotModified(request: Metadata, etag: string, modified: Date | null): boolean {
  const ifNoneMatch = request['if-none-match'];
  if (ifNoneMatch !== undefined && ifNoneMatch === etag) return true;
  const since = request['if-modified-since'];
  if (since === undefined || modified === null) return false;
  const sinceDate = parseRfc3339(since);
  return sinceDate !== null && modified.getTime() <= sinceDate.getTime();
}

/** An `ok` FETCH of one stored version: publisher keys, then the server's keys over them. */
export function documentResponse(request: Metadata, version: StoredVersion, extra: Metadata = {}): MarkResponse {
  if (isNotModified(request, version.etag, version.modified)) return notModified();
  return ok(
    {
      ...publisherMetadata(version.metadata),
      modified: formatRfc3339(version.modified),
      etag: version.etag,
      version: String(version.version),
      'content-hash': version.contentHash,
      ...extra,
    },
    version.body,
  );
}
