import { lookupDefaultLimit, lookupMaxLimit, lookupMaxTerms, lookupMinQueryRunes } from '../../protocol/limits.ts';
import { LookupRequestError } from './errors.ts';
import { goFields, goToLower, goTrimSpace } from './go-text.ts';
import { goAtoi } from '../go-atoi.ts';

/** A validated LOOKUP query: the trimmed text the response echoes, and what to match. */
export interface LookupQuery {
  readonly text: string;
  /** `*`: every document under the scope, score 0 (Go `catalog/catalog.go`). */
  readonly matchAll: boolean;
  readonly terms: readonly string[];
}

/** catalog.Tokenize: lower-cased, split on white space, distinct, in first-seen order. */
export function queryTerms(query: string): string[] {
  return [...new Set(goFields(goToLower(query)))];
}

/**
 * catalog.CountTerms: distinct terms, counting stops once past `limit`, so an
 * oversized query never builds its whole set (and the error always says 33).
 */
export function countQueryTerms(query: string, limit: number): number {
  const seen = new Set<string>();
  for (const term of goFields(goToLower(query))) {
    seen.add(term);
    if (seen.size > limit) break;
  }
  return seen.size;
}

/**
 * The query checks of handler.handleLookup, in its order: at least 2 runes
 * unless the trimmed query is `*` (a missing query is the empty one), then at
 * most 32 distinct terms, repeats collapsing.
 */
export function parseLookupQuery(raw: string | undefined): LookupQuery {
  const text = goTrimSpace(raw ?? '');
  if (text !== '*' && runeCount(text) < lookupMinQueryRunes) {
    throw new LookupRequestError('ERR_LOOKUP_QUERY_TOO_SHORT', 'query must be at least 2 characters');
  }
  const count = countQueryTerms(text, lookupMaxTerms);
  if (count > lookupMaxTerms) {
    throw new LookupRequestError('ERR_LOOKUP_TOO_MANY_TERMS', `query has too many terms: ${count} > ${lookupMaxTerms}`);
  }
  return { text, matchAll: text === '*', terms: queryTerms(text) };
}

function runeCount(text: string): number {
  let count = 0;
  for (const _ of text) count++;
  return count;
}

/**
 * The `limit` option: absent or empty is 10; anything strconv.Atoi refuses
 * (including values past int64) or below 1 is `invalid limit`; above 1000 is
 * clamped to 1000, not refused.
 */
export function parseLookupLimit(raw: string | undefined): number {
  if (raw === undefined || raw === '') return lookupDefaultLimit;
  const value = goAtoi(raw);
  if (value === undefined || value < 1n) throw invalidLimit();
  return value > BigInt(lookupMaxLimit) ? lookupMaxLimit : Number(value);
}

function invalidLimit(): LookupRequestError {
  return new LookupRequestError('ERR_LOOKUP_INVALID_LIMIT', 'invalid limit');
}
