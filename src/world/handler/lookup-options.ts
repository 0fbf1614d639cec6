import type { Metadata } from '../../protocol/metadata.ts';
import type { LookupMode } from '../../protocol/render/lookup.ts';
import { isLookupRequestError, parseLookupLimit, parseLookupQuery, type LookupQuery } from '../catalog/index.ts';

export type LookupOptions = LookupQuery & {
  limit: number;
  filterText: string;
  mode: LookupMode;
  /** Whether the request carried `match` (only then is it echoed). */
  echoMatch: boolean;
};

/**
 * LOOKUP validation in the Go handler's order (`handler.go` `handleLookup`): query length,
 * term count, limit (clamped, not refused, above 1000), then match. The filter
 * is parsed next by the caller, and the scope is checked last.
 * Returns the options or the bad-request message.
 */
export function parseLookupOptions(meta: Metadata): LookupOptions | string {
  let query: LookupQuery;
  let limit: number;
  try {
    query = parseLookupQuery(meta.query);
    limit = parseLookupLimit(meta.limit);
  } catch (error) {
    if (isLookupRequestError(error)) return error.message;
    throw error;
  }
  const match = meta.match;
  if (match !== undefined && match !== '' && match !== 'catalog' && match !== 'body') {
    return `match must be "catalog" or "body", got "${match}"`;
  }
  return {
    ...query,
    limit,
    filterText: meta.filter ?? '',
    mode: match === 'body' ? 'body' : 'catalog',
    echoMatch: match !== undefined,
  };
}
