import { lookupMaxTerms } from '../../protocol/limits.ts';
import { countLookupTerms } from '../../protocol/lookup-query.ts';
import { parseQuery } from '../../search/index.ts';

/**
 * Mark SPEC §2.7: a LOOKUP carries at most 32 distinct terms. A longer question
 * is reduced to its search terms (stopwords dropped, shared stems merged), which
 * the body match treats the same way, rather than refused by every world. The
 * terms are counted as the worlds count them (src/protocol/lookup-query.ts): a
 * JavaScript split would see one word where a world sees 41 words joined by U+0085.
 */
export function fitQuery(query: string): string {
  if (countLookupTerms(query, lookupMaxTerms) <= lookupMaxTerms) return query;
  return parseQuery(query)
    .map((t) => t.text)
    .join(' ');
}
