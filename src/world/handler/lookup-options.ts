import { lookupDefaultLimit, lookupMaxLimit, lookupMaxTerms, lookupMinQueryRunes } from '../../protocol/limits.ts';
import type { Metadata } from '../../protocol/metadata.ts';
import type { LookupMode } from '../../protocol/render/lookup.ts';

export type LookupOptions = {
  /** The trimmed query, as echoed in the body heading. */
  query: string;
  matchAll: boolean;
  limit: number;
  filterText: string;
  mode: LookupMode;
  /** Whether the request carried `match` (only then is it echoed). */
  echoMatch: boolean;
};

/**
 * LOOKUP validation in the Go handler's order (reference §2.7): query length,
 * term count, limit (clamped, not refused, above 1000), then match. The filter
 * is parsed by the catalog; the scope is checked last by the caller.
 * Returns the options or the bad-request message.
 */
export function parseLookupOptions(meta: Metadata): LookupOptions | string {
  const query = (meta['query'] ?? '').trim();
  const matchAll = query === '*';
  if (!matchAll && Array.from(query).length < lookupMinQueryRunes) return 'query must be at least 2 characters';
  const distinct = new Set(query.toLowerCase().split(/\s+/).filter((term) => term !== ''));
  if (distinct.size > lookupMaxTerms) return `query has too many terms: ${distinct.size} > ${lookupMaxTerms}`;
  const limit = parseLimit(meta['limit']);
  if (limit === null) return 'invalid limit';
  const match = meta['match'];
  if (match !== undefined && match !== '' && match !== 'catalog' && match !== 'body') {
    return `match must be "catalog" or "body", got "${match}"`;
  }
  return {
    query,
    matchAll,
    limit,
    filterText: meta['filter'] ?? '',
    mode: match === 'body' ? 'body' : 'catalog',
    echoMatch: match !== undefined,
  };
}

function parseLimit(text: string | undefined): number | null {
  if (text === undefined) return lookupDefaultLimit;
  if (!/^[+-]?\d+$/.test(text)) return null;
  const limit = Number(text);
  if (limit < 1) return null;
  return Math.min(limit, lookupMaxLimit);
}
