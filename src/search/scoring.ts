/**
 * Ranking constants and formulas. Ranking is implementation-defined (Go `catalog/bodymatch.go`);
 * the shape follows spexcode's `ranker.ts`: fielded tiers where only the
 * best tier of a term counts, BM25 term frequency, IDF ln(N/df), and a per-term
 * ceiling so no single term can outvote the rest of the query.
 */

export const weights = {
  /** A name word (title, basename, tag) starting with the term, × coverage (spexcode `ranker.ts`). */
  namePrefix: 8,
  /** Coverage floor: `spec` in `specification` still counts half (spexcode `NAME_COVER_FLOOR`). */
  nameCoverFloor: 0.5,
  /** Term present in the description, BM25 length-normalised (spexcode `W_DESC`). */
  description: 2.2,
  /** Term frequency over the whole body (spexcode `W_BODY`). */
  body: 1,
  /** Term frequency inside the row's own section. */
  section: 1,
  /** Term in the row's heading trail (its heading or an ancestor's). */
  trail: 2,
  /**
   * Share of a term's section-level score added on top of the document-level one.
   * r@3 is flat from 0.25 to 2 on the benchmark; MRR is best at the low end.
   */
  sectionFocus: 0.25,
  /** Per-term ceiling (spexcode `ranker.ts`): equal to the strongest tier. */
  termCeiling: 8,
} as const;

/**
 * BM25 saturation and length normalisation. K1 1.2 throughout (spexcode `ranker.ts`). Length
 * normalisation `b`: 0.4 for short fields (description, heading trail), as in spexcode;
 * 0.75, the usual BM25 value (and the Go body match's), for running text (whole
 * body, section), where spexcode's 0.4 lets long documents collect matches of common
 * words: on questions written apart from the public sixteen (bench/search-eval.ts,
 * second set) 0.4 left the longest documents of the corpus in most top-3 lists.
 */
export const bm25 = { k1: 1.2, b: 0.4, textB: 0.75 } as const;

/** BM25 term-frequency factor; 0 for an absent term. */
export function bm25tf(tf: number, length: number, averageLength: number, b: number = bm25.b): number {
  if (tf <= 0) return 0;
  const norm = 1 - b + (b * length) / (averageLength || 1);
  return (tf * (bm25.k1 + 1)) / (tf + bm25.k1 * norm);
}

/** spexcode `ranker.ts`: ln(N/df); a term held by every document (or none) weighs nothing. */
export function inverseDocumentFrequency(docCount: number, df: number): number {
  return df > 0 && docCount > df ? Math.log(docCount / df) : 0;
}

/**
 * Document prior: 0.7 + 0.3 × importance, halved under a `journal` path segment.
 * The Go body match (`catalog/bodymatch.go`) demotes journals the same way;
 * our two references disagree on the importance factor (0.3 + 0.7 × importance in
 * the Go body match, 0.7 + 0.3 × importance in spexcode's ranker). We take
 * the milder one so relevance, not declared importance, decides the order.
 * Importance never admits a row.
 */
export function documentPrior(importance: number, id: string): number {
  const clamped = Math.min(1, Math.max(0, Number.isFinite(importance) ? importance : 0.5));
  const demote = id.split('/').includes('journal') ? 0.5 : 1;
  return (0.7 + 0.3 * clamped) * demote;
}
