/**
 * Our optional extension of LOOKUP `match: body` (Go `bodymatch.go`), shared by the
 * world that answers it and the broker that asks. Every key is optional in both
 * directions: a Go world ignores the request keys and answers a plain Go `bodymatch.go` body
 * match, and a Go client ignores the response keys. A client knows a key was
 * honoured only by seeing its answer (the `match-terms` echo, the statistics,
 * the scores), never by assuming it.
 *
 * Values are single-line text (Mark SPEC §2: no CR or LF in a metadata value).
 * Terms are word runs or single CJK characters (tokenize.ts), so they never hold
 * `=` or `,` and a `term=n,term=n` list needs no escaping.
 */
import type { CorpusTotals, QueryStats } from './types.ts';
import { errorWithCode } from '../errors/coded-error.ts';

export const lookupExtensionKeys = {
  /**
   * Request `any`: rank rows holding any query term instead of requiring every
   * term (a distinct mode: the Go `bodymatch.go` rule says every term must be found). The
   * response echoes `match-terms: any` when it answered that way.
   */
  matchTerms: 'match-terms',
  /**
   * Request `only`: answer this world's statistics for the query and no rows
   * (phase one of a cross-world search). Request with totals (and `corpus-df`):
   * score with these statistics instead of the world's own (phase two); a query
   * term `corpus-df` leaves out is counted over the documents the caller may read
   * in the scope, never over hidden ones (search-index.ts `#completeStats`).
   * Response: the totals, beside `corpus-df`.
   */
  corpusStats: 'corpus-stats',
  corpusDf: 'corpus-df',
  /**
   * Request `include`, beside statistics to score with: also answer this world's
   * own statistics (`corpus-stats`, `corpus-df`), as phase one would. A broker
   * that scored with statistics it remembered checks them against these, so a
   * search whose statistics have not changed needs one round instead of two.
   */
  ownStats: 'own-stats',
  /** Response, to a request that carried statistics: one score per row, in row order. */
  rowScores: 'row-scores',
  /** Request N (1-10): when no row matches, answer up to N nearest titles, as JSON. */
  nearestTitles: 'nearest-titles',
  /** Response, with nearest titles: a hint that the query may be in another language. */
  languageHint: 'language-hint',
} as const;

export const statsOnlyValue = 'only';
export const ownStatsValue = 'include';
export const maxNearestTitles = 10;

/** An extension value that does not parse; the world answers bad-request with the message. */
export class LookupExtensionError extends errorWithCode('ERR_LOOKUP_EXTENSION') {}

const totalsFields: readonly [keyof CorpusTotals, string][] = [
  ['docCount', 'docs'],
  ['sectionCount', 'sections'],
  ['describedDocs', 'described'],
  ['nameTokens', 'name'],
  ['descriptionTokens', 'description'],
  ['bodyTokens', 'body'],
  ['trailTokens', 'trail'],
];

/** The two metadata values that carry query statistics. */
export function encodeQueryStats(stats: QueryStats): { 'corpus-stats': string; 'corpus-df': string } {
  const totals = totalsFields.map(([field, name]) => `${name}=${stats.totals[field]}`).join(',');
  const df = Object.entries(stats.df)
    .map(([term, n]) => `${term}=${n}`)
    .join(',');
  return { 'corpus-stats': totals, 'corpus-df': df };
}

/** Reads `corpus-stats` and `corpus-df`; throws LookupExtensionError on anything malformed. */
export function decodeQueryStats(totalsText: string, dfText: string): QueryStats {
  const totalsPairs = pairs(totalsText, 'corpus-stats');
  const totals = {} as CorpusTotals;
  for (const [field, name] of totalsFields) {
    const value = totalsPairs.get(name);
    if (value === undefined) throw new LookupExtensionError(`corpus-stats lacks ${name}`);
    totals[field] = value;
  }
  if (totalsPairs.size !== totalsFields.length) throw new LookupExtensionError('corpus-stats has unknown fields');
  return { totals, df: Object.fromEntries(pairs(dfText, 'corpus-df')) };
}

function pairs(text: string, key: string): Map<string, number> {
  const out = new Map<string, number>();
  if (text.trim() === '') return out;
  for (const part of text.split(',')) {
    const at = part.lastIndexOf('=');
    const name = part.slice(0, at).trim();
    const digits = part.slice(at + 1).trim();
    if (at <= 0 || !/^\d{1,15}$/.test(digits) || out.has(name))
      throw new LookupExtensionError(`invalid ${key} entry "${part}"`);
    out.set(name, Number(digits));
  }
  return out;
}

/** Scores with four decimals: enough to order, short enough for a thousand rows. */
export function encodeScores(scores: readonly number[]): string {
  return scores.map((s) => s.toFixed(4)).join(',');
}

/** Scores back, or undefined when they do not parse or do not count `rows`. */
export function decodeScores(text: string | undefined, rows: number): number[] | undefined {
  if (text === undefined) return undefined;
  const parts = text.trim() === '' ? [] : text.split(',');
  if (parts.length !== rows) return undefined;
  const scores = parts.map((p) => (/^\d+(\.\d+)?$/.test(p.trim()) ? Number(p) : NaN));
  return scores.every(Number.isFinite) ? scores : undefined;
}

export interface NearestTitleEntry {
  path: string;
  title: string;
  /** spexcode `ranker.ts`: Σ of per-word normalised edit similarity; the same scale in every world. */
  similarity: number;
}

export function encodeNearest(entries: readonly NearestTitleEntry[]): string {
  return JSON.stringify(
    entries.map((e) => ({ path: e.path, title: e.title, similarity: Math.round(e.similarity * 1000) / 1000 })),
  );
}

/** Nearest titles back; entries without a string path and title, or a numeric similarity, are dropped. */
export function decodeNearest(text: string | undefined): NearestTitleEntry[] {
  if (text === undefined) return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.filter(isNearestEntry).map((e) => ({ path: e.path, title: e.title, similarity: e.similarity }));
}

function isNearestEntry(value: unknown): value is NearestTitleEntry {
  const e = value as Partial<NearestTitleEntry> | null;
  return (
    typeof e === 'object' &&
    e !== null &&
    typeof e.path === 'string' &&
    e.path.startsWith('/') &&
    typeof e.title === 'string' &&
    typeof e.similarity === 'number'
  );
}

/** `nearest-titles` request value: 1..10, or undefined when absent; throws when malformed. */
export function parseNearestCount(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = /^\d{1,2}$/.test(text.trim()) ? Number(text) : NaN;
  if (!(n >= 1 && n <= maxNearestTitles))
    throw new LookupExtensionError(`nearest-titles must be 1 to ${maxNearestTitles}`);
  return n;
}
