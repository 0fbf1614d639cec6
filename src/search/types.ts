/** Public shapes of the search index. */

/** A document as the index takes it; `id` is the document path. */
export interface SearchDoc {
  id: string;
  title: string;
  /** Basename of the path; ranked with the title. */
  name?: string;
  description?: string;
  tags: string[];
  /** 0..1 (Mark SPEC §4 `importance`); scales the score, never admits a row. */
  importance: number;
  /** Markdown body, without frontmatter. */
  body: string;
}

/** One result row (Go `bodymatch.go` rows): a section, or the bare path when anchor is ''. */
export interface SearchRow {
  id: string;
  anchor: string;
  docTitle: string;
  /** The section's own heading; absent on a bare-path row and on the leading bare section. */
  heading?: string;
  snippet: string;
  score: number;
}

/**
 * `all` is the Go `bodymatch.go` match rule: every query term must be found. `any`
 * admits a row that holds at least one term and lets the score rank coverage: it is
 * meant for free-text questions (broker search, the retrieval benchmark).
 */
export type MatchMode = 'all' | 'any';

export interface CorpusTotals {
  docCount: number;
  sectionCount: number;
  /** Documents with a non-empty description: the description average is over them. */
  describedDocs: number;
  /** Token counts summed over live documents, per field. */
  nameTokens: number;
  descriptionTokens: number;
  bodyTokens: number;
  trailTokens: number;
}

/**
 * What a world contributes to a cross-world ranking: its corpus totals and, for each
 * query term (by QueryTerm.text), the number of its documents that hold the term.
 * Summing these over worlds (mergeQueryStats) gives one IDF for all of them.
 */
export interface QueryStats {
  totals: CorpusTotals;
  df: Record<string, number>;
}

export interface SearchOptions {
  /** Rows to return (after `allow`); default 10. */
  limit?: number;
  mode?: MatchMode;
  /** Documents outside the scope produce no rows. */
  scope?: (id: string) => boolean;
  /** Read authorization, per row and before the limit (Mark SPEC §2.7). */
  allow?: (id: string) => boolean;
  /** Score with these statistics instead of this index's own (cross-world merge). */
  globalStats?: QueryStats;
}
