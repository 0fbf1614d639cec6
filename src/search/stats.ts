/**
 * Corpus statistics for cross-world ranking.
 *
 * Decision (two-phase merge): a score is comparable across worlds only if every
 * world uses the same N, df and average lengths. The broker first asks each world
 * for `queryStats(query)` (totals plus df per query term, a few numbers), sums them
 * with `mergeQueryStats`, then asks each world to `search` with `globalStats`.
 * Documents are disjoint across worlds, so summed df is the exact df of the union.
 * Per-row term frequencies were the alternative; they would ship more data per row
 * and force the broker to re-implement scoring.
 */
import type { CorpusTotals, QueryStats } from './types.ts';

export interface FieldAverages {
  name: number;
  /** Description tokens per document that has a description. */
  description: number;
  /** Body tokens per document. */
  body: number;
  /** Body tokens per section. */
  section: number;
  /** Heading-trail tokens per section. */
  trail: number;
}

export function fieldAverages(t: CorpusTotals): FieldAverages {
  const perDoc = (n: number): number => (t.docCount > 0 ? n / t.docCount : 0);
  const perSection = (n: number): number => (t.sectionCount > 0 ? n / t.sectionCount : 0);
  return {
    name: perDoc(t.nameTokens),
    // A description is optional metadata: averaging over documents without one
    // would make every description look long.
    description: t.describedDocs > 0 ? t.descriptionTokens / t.describedDocs : 0,
    body: perDoc(t.bodyTokens),
    section: perSection(t.bodyTokens),
    trail: perSection(t.trailTokens),
  };
}

export function emptyTotals(): CorpusTotals {
  return {
    docCount: 0,
    sectionCount: 0,
    describedDocs: 0,
    nameTokens: 0,
    descriptionTokens: 0,
    bodyTokens: 0,
    trailTokens: 0,
  };
}

/** Sums the statistics of disjoint corpora. */
export function mergeQueryStats(parts: readonly QueryStats[]): QueryStats {
  const totals = emptyTotals();
  // No prototype: a term such as `__proto__` is an ordinary key here.
  const df = Object.create(null) as Record<string, number>;
  for (const part of parts) {
    for (const key of Object.keys(totals) as (keyof CorpusTotals)[]) totals[key] += part.totals[key];
    for (const [term, n] of Object.entries(part.df)) df[term] = (dfOf(df, term) ?? 0) + n;
  }
  return { totals, df };
}

/**
 * A term's df in a statistics record, own properties only: a query term such as
 * `constructor` must not read Object.prototype.
 */
export function dfOf(df: Readonly<Record<string, number>>, term: string): number | undefined {
  return Object.hasOwn(df, term) ? df[term] : undefined;
}
