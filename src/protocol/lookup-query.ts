import { goFields, goToLower, goTrimSpace } from './go-strings.ts';
import { lookupMinQueryRunes } from './limits.ts';

/**
 * The query rules of LOOKUP as every world applies them (Go
 * `handler.handleLookup`, `catalog.Tokenize`, `catalog.CountTerms`), here so a
 * broker can check a query before it asks any world, by the same rules.
 */

/**
 * Step 1 of handleLookup: the query trimmed of Go white space must be `*` or
 * hold at least 2 runes (a missing query is the empty one).
 */
export function isLookupQueryTooShort(query: string): boolean {
  const text = goTrimSpace(query);
  return text !== '*' && runeCount(text) < lookupMinQueryRunes;
}

/** The worlds' refusal of such a query, byte for byte; a broker refusing it first says the same. */
export const lookupQueryTooShortMessage = `query must be at least ${lookupMinQueryRunes} characters`;

/**
 * The terms of a query (Go `catalog.Tokenize`): lower-cased, split on Go white
 * space, distinct, in first-seen order. Mark SPEC §2.7 allows at most 32
 * (`lookupMaxTerms`).
 */
export function lookupTerms(query: string): string[] {
  return [...new Set(goFields(goToLower(query)))];
}

/**
 * Go `catalog.CountTerms`: the distinct terms, counting stops once past
 * `limit`, so an oversized query never builds its whole set (and the world's
 * error always says 33).
 */
export function countLookupTerms(query: string, limit: number): number {
  const seen = new Set<string>();
  for (const term of goFields(goToLower(query))) {
    seen.add(term);
    if (seen.size > limit) break;
  }
  return seen.size;
}

function runeCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}
