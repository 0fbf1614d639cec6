import { lookupMaxTerms } from '../../protocol/limits.ts';
import { parseQuery } from '../../search/index.ts';

/**
 * Mark SPEC §2.7: a LOOKUP carries at most 32 distinct terms. A longer question
 * is reduced to its search terms (stopwords dropped, shared stems merged), which
 * the body match treats the same way, rather than refused by every world.
 */
export function fitQuery(query: string): string {
  const distinct = new Set(
    query
      .toLowerCase()
      .split(/\s+/)
      .filter((w) => w !== ''),
  );
  if (distinct.size <= lookupMaxTerms) return query;
  return parseQuery(query)
    .map((t) => t.text)
    .join(' ');
}
