/**
 * The reference lexical ranker, written from spexcode's `ranker.ts` `rankDocs` (tokenizer,
 * stoplist, light query stem, fielded tiers, IDF ln(N/df), per-term ceiling), so a
 * question set that has no published reference reading can still be scored beside it.
 * Benchmark-only: it re-tokenises the corpus per query, as the design it describes does.
 * bench/search-eval.ts checks that it reproduces reference-results.json before using it.
 */

export interface ReferenceDoc {
  id: string;
  title: string;
  desc: string;
  body: string;
}

export interface ReferenceHit {
  id: string;
  score: number;
}

const W_NAME_PREFIX = 8;
const W_NAME_SUBSTR = 5;
const W_DESC = 2.2;
const W_BODY = 1;
const NAME_COVER_FLOOR = 0.5;
const K1 = 1.2;
const B = 0.4;

const stop = new Set(
  'the a an and or of to in on is it its as at by for how does do what which that this these those with from into are be can just them they their so if not no but vs us we you'.split(
    ' ',
  ),
);
const tokenPattern = /[a-z0-9]+|[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff]/g;
const cjk = /^[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\u3040-\u30ff]$/;

function tokenize(text: string): string[] {
  return text.toLowerCase().match(tokenPattern) ?? [];
}

function terms(query: string): string[] {
  const out: string[] = [];
  for (const t of tokenize(query)) {
    const keep = cjk.test(t) || (t.length > 1 && !stop.has(t));
    if (keep && !out.includes(t)) out.push(t);
  }
  return out;
}

function stem(t: string): string {
  let s = t;
  if (s.length >= 4 && s.endsWith('s') && !s.endsWith('ss')) s = s.slice(0, -1);
  if (s.length >= 5 && s.endsWith('e')) s = s.slice(0, -1);
  return s;
}

function bm25tf(tf: number, len: number, avgLen: number): number {
  return tf <= 0 ? 0 : (tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * len) / (avgLen || 1)));
}

interface Prepared {
  id: string;
  name: string;
  nameWords: string[];
  descWords: string[];
  bodyWords: string[];
}

/** Ranks `docs` (already in tie-break order) for `query`; the first `limit` hits. */
export function referenceRank(docs: readonly ReferenceDoc[], query: string, limit = 10): ReferenceHit[] {
  const qterms = terms(query);
  if (qterms.length === 0) return [];
  const prepared: Prepared[] = docs.map((d) => {
    const name = `${d.title} ${d.id}`;
    return {
      id: d.id,
      name: name.toLowerCase(),
      nameWords: tokenize(name),
      descWords: tokenize(d.desc),
      bodyWords: tokenize(d.body.trim()),
    };
  });
  const n = prepared.length;
  const avgDesc = prepared.reduce((s, d) => s + d.descWords.length, 0) / n;
  const avgBody = prepared.reduce((s, d) => s + d.bodyWords.length, 0) / n;
  const nameMatch = (term: string, w: string): boolean => w.startsWith(stem(term));
  const textMatch = (term: string, w: string): boolean =>
    w.startsWith(stem(term)) || (w.length >= 3 && term.startsWith(w));
  const idf = new Map<string, number>();
  for (const t of qterms) {
    const df = prepared.filter(
      (d) =>
        d.nameWords.some((w) => nameMatch(t, w)) ||
        d.descWords.some((w) => textMatch(t, w)) ||
        d.bodyWords.some((w) => textMatch(t, w)),
    ).length;
    idf.set(t, df > 0 ? Math.log(n / df) : 0);
  }
  const tier = (t: string, d: Prepared): number => {
    const st = stem(t);
    let best = 0;
    for (const w of d.nameWords) if (w.startsWith(st)) best = Math.max(best, st.length / w.length);
    if (best > 0) return W_NAME_PREFIX * Math.max(NAME_COVER_FLOOR, best);
    if (d.name.includes(t)) return W_NAME_SUBSTR;
    if (d.descWords.some((w) => textMatch(t, w))) return W_DESC * bm25tf(1, d.descWords.length, avgDesc);
    const tf = d.bodyWords.filter((w) => textMatch(t, w)).length;
    return W_BODY * bm25tf(tf, d.bodyWords.length, avgBody);
  };
  const scored = prepared
    .map((d) => ({
      id: d.id,
      score: qterms.reduce((s, t) => s + Math.min(tier(t, d) * (idf.get(t) ?? 0), W_NAME_PREFIX), 0),
    }))
    .filter((h) => h.score > 0)
    .map((h) => ({ id: h.id, score: Math.round(h.score * 100) / 100 }));
  // Array.prototype.sort is stable: equal scores keep the input (tie-break) order.
  scored.sort((a, b) => b.score - a.score);
  return scored.slice(0, limit);
}

/** The loader's order before ranking: shorter ids first, then by localeCompare. */
export function referenceOrder<T extends { id: string }>(docs: readonly T[]): T[] {
  return [...docs].sort((a, b) => a.id.length - b.id.length || a.id.localeCompare(b.id));
}
