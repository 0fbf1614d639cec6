import { goFields, goToLower } from './go-strings.ts';

/**
 * The terms of a LOOKUP query as every world counts them (Go
 * `catalog.Tokenize`): lower-cased, split on Go white space, distinct, in
 * first-seen order. Mark SPEC §2.7 allows at most 32 (`lookupMaxTerms`).
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
