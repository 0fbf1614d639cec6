/**
 * Zero-result help, part 1 (spexcode `ranker.ts`): titles nearest to the query
 * by per-word normalised edit distance, so a typo such as `kyeboard` still points at
 * `keyboard-nav`. Not part of ranking; it runs only when a query found nothing.
 *
 * Its cost is bounded by what a query word is (test/security/nearest-titles-bounded.test.ts):
 * the query words are parseQuery's terms (query-terms.ts: at most 32, each at most
 * 32 bytes, tokenize.ts) and a title's words are its index tokens (wordRuns), so
 * one comparison is at most 32 × 32 steps however long the query or the title.
 */
import type { DocRecord } from './doc-record.ts';
import { parseQuery } from './query-terms.ts';
import { admitWork, runWhole, WorkMeter, type Sliced } from './slices.ts';
import { wordRuns } from './tokenize.ts';

export interface NearTitle {
  id: string;
  title: string;
  /** Σ over query words of their best similarity to a title or name word. */
  similarity: number;
}

/** A query word counts toward a title only from this similarity up (spexcode `ranker.ts`). */
const minWordSimilarity = 0.5;

/**
 * The one row of the edit-distance table, reused by every comparison and grown
 * as needed (a fresh array per row cost hundreds of megabytes for a long query).
 * Shared by queries run in slices (slices.ts) only because one comparison never
 * spans a yield: the row is filled and read within one call of editDistance.
 */
let row = new Uint32Array(64);

/** Levenshtein distance, in one reused row (the diagonal kept in a variable). */
export function editDistance(a: string, b: string): number {
  if (row.length < b.length + 1) row = new Uint32Array(Math.max(b.length + 1, row.length * 2));
  for (let j = 0; j <= b.length; j++) row[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0] as number;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j] as number;
      const substitution = diagonal + (a[i - 1] === b[j - 1] ? 0 : 1);
      row[j] = Math.min(above + 1, (row[j - 1] as number) + 1, substitution);
      diagonal = above;
    }
  }
  return row[b.length] as number;
}

/** 1 − distance / longer length; 1 for equal words. */
export function wordSimilarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 1 : 1 - editDistance(a, b) / longest;
}

/**
 * The similarity of two words where it can reach `minWordSimilarity`, else 0.
 * The distance is at least the difference in length, so a pair whose lengths
 * alone keep it under the threshold is not compared: it could not count.
 */
function similarityFromThreshold(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  if (longest > 0 && 1 - Math.abs(a.length - b.length) / longest < minWordSimilarity) return 0;
  return wordSimilarity(a, b);
}

/**
 * Work units of one title's comparisons, against a posting's 1 (slices.ts): a
 * title costs up to 32 × (its words) edit distances, microseconds, so the search
 * yields every few titles.
 */
const titleWork = 256;

export function nearestTitles(query: string, docs: Iterable<DocRecord>, limit = 3): NearTitle[] {
  return runWhole(nearestTitleSteps(query, docs, limit));
}

/**
 * nearestTitles, yielding between titles (slices.ts). With `admit`, only the
 * documents it admits are compared; it is asked of each just before its title
 * would be, and counts as work (`admitWork`) whatever it answers.
 */
export function* nearestTitleSteps(
  query: string,
  docs: Iterable<DocRecord>,
  limit = 3,
  admit?: (doc: DocRecord) => boolean,
): Sliced<NearTitle[]> {
  const queryWords = parseQuery(query).map((term) => term.text);
  if (queryWords.length === 0) return [];
  const cache = queryWords.map(() => new Map<string, number>());
  const scored: NearTitle[] = [];
  const meter = new WorkMeter();
  for (const doc of docs) {
    if (admit !== undefined) {
      if (meter.spend(admitWork)) yield;
      if (!admit(doc)) continue;
    }
    if (meter.spend(titleWork)) yield;
    const titleWords = new Set(wordRuns(`${doc.title} ${doc.name}`));
    let similarity = 0;
    queryWords.forEach((q, i) => {
      let best = 0;
      for (const w of titleWords) best = Math.max(best, cached(cache[i], q, w));
      if (best >= minWordSimilarity) similarity += best;
    });
    if (similarity > 0) scored.push({ id: doc.id, title: doc.title, similarity });
  }
  scored.sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  return scored.slice(0, limit);
}

function cached(cache: Map<string, number> | undefined, q: string, w: string): number {
  const hit = cache?.get(w);
  if (hit !== undefined) return hit;
  const value = similarityFromThreshold(q, w);
  cache?.set(w, value);
  return value;
}
