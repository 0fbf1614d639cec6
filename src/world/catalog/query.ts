import { lookupDefaultLimit, lookupMaxLimit, lookupMaxTerms } from '../../protocol/limits.ts';
import { LookupRequestError } from './errors.ts';
import { goTrimSpace } from '../../protocol/go-strings.ts';
import {
  countLookupTerms,
  isLookupQueryTooShort,
  lookupQueryTooShortMessage,
  lookupTerms,
} from '../../protocol/lookup-query.ts';
import { goAtoi } from '../go-atoi.ts';

/** A validated LOOKUP query: the trimmed text the response echoes, and what to match. */
export interface LookupQuery {
  readonly text: string;
  /** `*`: every document under the scope, score 0 (Go `catalog/catalog.go`). */
  readonly matchAll: boolean;
  readonly terms: readonly string[];
}

/**
 * The query checks of handler.handleLookup, in its order
 * (src/protocol/lookup-query.ts): at least 2 runes unless the trimmed query is
 * `*` (a missing query is the empty one), then at most 32 distinct terms,
 * repeats collapsing.
 */
export function parseLookupQuery(raw: string | undefined): LookupQuery {
  const text = goTrimSpace(raw ?? '');
  if (isLookupQueryTooShort(text)) {
    throw new LookupRequestError('ERR_LOOKUP_QUERY_TOO_SHORT', lookupQueryTooShortMessage);
  }
  const count = countLookupTerms(text, lookupMaxTerms);
  if (count > lookupMaxTerms) {
    throw new LookupRequestError('ERR_LOOKUP_TOO_MANY_TERMS', `query has too many terms: ${count} > ${lookupMaxTerms}`);
  }
  return { text, matchAll: text === '*', terms: lookupTerms(text) };
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
