/**
 * Zero-result help, part 1 (spexcode `ranker.ts`): titles nearest to the query
 * by per-word normalised edit distance, so a typo such as `kyeboard` still points at
 * `keyboard-nav`. Not part of ranking; it runs only when a query found nothing.
 */
import type { DocRecord } from './doc-record.ts';

export interface NearTitle {
  id: string;
  title: string;
  /** Σ over query words of their best similarity to a title or name word. */
  similarity: number;
}

/** A query word counts toward a title only from this similarity up (spexcode `ranker.ts`). */
const minWordSimilarity = 0.5;

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 1);
}

/** Levenshtein distance, two rows. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}

/** 1 − distance / longer length; 1 for equal words. */
export function wordSimilarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  return longest === 0 ? 1 : 1 - editDistance(a, b) / longest;
}

export function nearestTitles(query: string, docs: Iterable<DocRecord>, limit = 3): NearTitle[] {
  const queryWords = [...new Set(words(query))];
  if (queryWords.length === 0) return [];
  const cache = queryWords.map(() => new Map<string, number>());
  const scored: NearTitle[] = [];
  for (const doc of docs) {
    const titleWords = new Set(words(`${doc.title} ${doc.name}`));
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
  const value = wordSimilarity(q, w);
  cache?.set(w, value);
  return value;
}
