import { lookupMaxTerms, lookupMinQueryRunes } from '../../protocol/limits.ts';
import { countLookupTerms, isLookupQueryTooShort } from '../../protocol/lookup-query.ts';
import { maxTokenBytes, parseQuery } from '../../search/index.ts';

/** The query to send to every world, or why none can be sent. */
export type FittedQuery = { query: string } | { refusal: string };

/**
 * Mark SPEC §2.7: a LOOKUP carries at most 32 distinct terms. A longer question
 * is reduced to its search terms (stopwords dropped, shared stems merged), which
 * the body match treats the same way, rather than refused by every world. The
 * terms are counted as the worlds count them (src/protocol/lookup-query.ts): a
 * JavaScript split would see one word where a world sees 41 words joined by U+0085.
 *
 * A reduction the worlds would refuse as too short (no search term, or one CJK
 * character) is refused here, saying why, instead of sending every world a
 * query that question never was (docs/decisions.md).
 */
export function fitQuery(query: string): FittedQuery {
  if (countLookupTerms(query, lookupMaxTerms) <= lookupMaxTerms) return { query };
  const reduced = parseQuery(query)
    .map((t) => t.text)
    .join(' ');
  if (!isLookupQueryTooShort(reduced)) return { query: reduced };
  const found =
    reduced === ''
      ? 'none of them is searchable'
      : `its only searchable word, "${reduced}", is shorter than the ${lookupMinQueryRunes} characters a world accepts`;
  return {
    refusal:
      `query has more than ${lookupMaxTerms} distinct words, more than a world accepts, and ${found} ` +
      `(punctuation, single letters or digits, and words longer than ${maxTokenBytes} bytes are not searched); ` +
      `ask again with at least one word of ${lookupMinQueryRunes} or more letters or digits`,
  };
}
