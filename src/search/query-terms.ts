/**
 * Query terms (Go `bodymatch.go` `queryTerms`, with the spexcode `ranker.ts`
 * refinements).
 *
 * Go `bodymatch.go`: split on whitespace, trim non-word characters from each end, lowercase,
 * keep terms of ≥ 2 runes, deduplicate. Our refinements, each of which can only add
 * rows to what the Go `bodymatch.go` rule returns, never remove one:
 * - a field with inner punctuation (`session's`, `keyboard-nav`, `path.match`) is
 *   replaced by its word runs; a document token `path.match` always comes with the
 *   runs `path` and `match`, so requiring the runs finds every row the whole would;
 * - a CJK run is replaced by its characters (unigrams, as spexcode's `ranker.ts`);
 * - stopwords (stem.ts) are dropped, unless the query has nothing else;
 * - each term carries a stem (stem.ts) used as a word-boundary prefix, and terms
 *   with the same stem are one term.
 */
import { stem, stopwords } from './stem.ts';
import { keepsToken, trimNonWord, wordRuns } from './tokenize.ts';

export interface QueryTerm {
  /** The term as typed, lowercase: one word run or one CJK character. */
  text: string;
  /** Query-side stem; documents match when one of their words starts with it. */
  stem: string;
  /** False for CJK characters and 2-letter terms, which match whole words only. */
  expands: boolean;
}

/** Mark SPEC §2.7: a LOOKUP query carries at most 32 distinct terms. */
export const maxQueryTerms = 32;

/** Shortest stem that may expand to longer words; `id` must not reach `idle`. */
const minExpandingStem = 3;

/** The ordered, distinct terms of a query; `*` and punctuation-only queries give none. */
export function parseQuery(query: string): QueryTerm[] {
  const parts: string[] = [];
  for (const field of query.split(/\s+/u)) {
    const whole = trimNonWord(field).toLowerCase();
    if (whole === '') continue;
    for (const run of wordRuns(whole)) if (keepsToken(run)) parts.push(run);
  }
  const content = parts.filter((p) => !stopwords.has(p));
  const chosen = content.length > 0 ? content : parts;
  // Terms sharing a stem (`session`, `sessions`) are one term: counting both would
  // weigh one concept twice.
  const byStem = new Map<string, QueryTerm>();
  for (const term of chosen.map(toTerm)) if (!byStem.has(term.stem)) byStem.set(term.stem, term);
  return [...byStem.values()].slice(0, maxQueryTerms);
}

function toTerm(text: string): QueryTerm {
  if (text.length === 1) return { text, stem: text, expands: false };
  const stemmed = stem(text);
  return { text, stem: stemmed, expands: stemmed.length >= minExpandingStem };
}
