/**
 * LOOKUP benchmark: the indexed catalog against a linear scan (the Go
 * reference's algorithm: test every entry, sort the matches), both measured in
 * this run on the same seeded corpora of 1k, 10k and 100k documents, at the
 * handler level (query, limit and filter parsing, per-row read-auth, the
 * rendered body; no QUIC). Also times the start-up build from in-memory entries.
 * Prints figures and ratios only; nothing here is a pass/fail threshold.
 *
 * Run: node bench/lookup.ts [--sizes=1000,10000,100000]
 */
import { goToLower } from '../src/protocol/go-strings.ts';
import { renderLookup } from '../src/protocol/render/lookup.ts';
import {
  Catalog,
  compareCodePoints,
  entryFromDocument,
  foldKey,
  matchesFilter,
  parseFilter,
  parseLookupLimit,
  parseLookupQuery,
} from '../src/world/catalog/index.ts';
import type { CatalogEntry, LookupHit, LookupQuery, Predicate } from '../src/world/catalog/index.ts';
import { generateCorpus } from '../test/world/catalog/corpus.ts';

export interface LookupBenchCase {
  readonly name: string;
  readonly query: string;
  readonly scope?: string;
  readonly filter?: string;
  readonly limit?: string;
}

/** The mix: a tag, a title word, two terms, `*`, filters, a scope, a rare word. */
export const lookupBenchCases: readonly LookupBenchCase[] = [
  { name: 'tag term', query: 'kubernetes' },
  { name: 'title word', query: 'middleware' },
  { name: 'two terms', query: 'auth design' },
  { name: '* limit 10', query: '*' },
  { name: '* + filter', query: '*', filter: 'project=broker,type=ADR' },
  { name: 'term + filter', query: 'storage', filter: 'tag=ops,modified-after=2025-01-01' },
  { name: 'scoped term', query: 'guide', scope: '/area-3/sub-2' },
  { name: 'rare word', query: 'kalo' },
];

export interface Timing {
  readonly p50Ms: number;
  readonly p99Ms: number;
}

export interface LookupBenchRow {
  readonly documents: number;
  readonly name: string;
  readonly indexed: Timing;
  readonly linear: Timing;
  readonly rows: number;
  readonly sameAnswer: boolean;
}

export interface LookupBenchResult {
  readonly rows: LookupBenchRow[];
  readonly buildMs: { documents: number; medianMs: number }[];
  /** Mean cost of one upsert (a re-publish) and one remove plus re-add (archive, unarchive). */
  readonly updateMicros: { documents: number; upsert: number; removeAndAdd: number }[];
}

type Lookup = (
  query: LookupQuery,
  scope: string,
  filter: readonly Predicate[],
  limit: number,
  allow: (path: string) => boolean,
) => LookupHit[];

/** What the world handler does around the catalog for one LOOKUP, minus the wire. */
function handleLookup(lookup: Lookup, c: LookupBenchCase): { body: string; hits: LookupHit[] } {
  const query = parseLookupQuery(c.query);
  const limit = parseLookupLimit(c.limit);
  const filter = parseFilter(c.filter);
  const scope = c.scope ?? '/';
  // Read-auth stand-in: one subtree is private, as a `read` token pattern would make it.
  const hits = lookup(query, scope, filter, limit, (path) => !path.startsWith('/area-0/sub-0/'));
  return { hits, body: renderLookup(query.text, scope, 'catalog', hits) };
}

type Match = { readonly entry: CatalogEntry; readonly score: number };

const better = (a: Match, b: Match): number =>
  b.score - a.score ||
  b.entry.importance - a.entry.importance ||
  b.entry.modified.getTime() - a.entry.modified.getTime() ||
  compareCodePoints(a.entry.path, b.entry.path);

/**
 * The baseline, as the Go catalog does it: test every entry, keep only the best
 * 1000 while scanning (here: cut back whenever 2000 pile up), sort them. The
 * lower-cased title and folded tags are prepared once, to be fair to it.
 */
function linearCatalog(entries: readonly CatalogEntry[]): Lookup {
  const prepared = entries.map((entry) => ({ entry, title: goToLower(entry.title), tags: entry.tags.map(foldKey) }));
  return (query, scope, filter, limit, allow) => {
    let best: Match[] = [];
    const terms = query.terms.map((term) => ({ term, folded: foldKey(term) }));
    for (const { entry, title, tags } of prepared) {
      if (scope !== '/' && entry.path !== scope && !entry.path.startsWith(`${scope}/`)) continue;
      if (!matchesFilter(entry, filter)) continue;
      let score = 0;
      if (!query.matchAll)
        for (const { term, folded } of terms) if (tags.includes(folded) || title.includes(term)) score++;
      if (!query.matchAll && score === 0) continue;
      best.push({ entry, score });
      if (best.length >= 2000) best = best.sort(better).slice(0, 1000);
    }
    best = best.sort(better).slice(0, 1000);
    return best
      .filter((m) => allow(m.entry.path))
      .slice(0, limit)
      .map((m) => ({ ...m.entry, score: m.score }));
  };
}

function time(run: () => void, iterations: number): Timing {
  for (let i = 0; i < Math.min(20, iterations); i++) run();
  const samples: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const start = performance.now();
    run();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))]!;
  return { p50Ms: at(0.5), p99Ms: at(0.99) };
}

function medianBuildMs(entries: readonly CatalogEntry[], runs: number): number {
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    new Catalog(entries);
    samples.push(performance.now() - start);
  }
  return samples.sort((a, b) => a - b)[Math.floor(runs / 2)]!;
}

function updateMicros(catalog: Catalog, entries: readonly CatalogEntry[]): { upsert: number; removeAndAdd: number } {
  const sample = entries.slice(0, 2000);
  let start = performance.now();
  for (const entry of sample) catalog.upsert({ ...entry, importance: 1 - entry.importance });
  const upsert = ((performance.now() - start) * 1000) / sample.length;
  start = performance.now();
  for (const entry of sample) {
    catalog.remove(entry.path);
    catalog.upsert(entry);
  }
  return { upsert, removeAndAdd: ((performance.now() - start) * 1000) / sample.length };
}

export function runLookupBenchmark(options: { sizes?: readonly number[]; seed?: number } = {}): LookupBenchResult {
  const sizes = options.sizes ?? [1_000, 10_000, 100_000];
  const rows: LookupBenchRow[] = [];
  const buildMs: LookupBenchResult['buildMs'] = [];
  const updates: LookupBenchResult['updateMicros'] = [];
  for (const documents of sizes) {
    const entries = generateCorpus(documents, { seed: options.seed ?? 42 }).documents.map(entryFromDocument);
    if (documents >= 10_000) buildMs.push({ documents, medianMs: medianBuildMs(entries, 5) });
    const catalog = new Catalog(entries);
    const indexed: Lookup = (query, scope, filter, limit, allow) =>
      catalog.lookup({ ...query, scope, filter, limit, allow });
    const linear = linearCatalog(entries);
    const linearIterations = Math.max(15, Math.min(300, Math.floor(3_000_000 / documents)));
    for (const c of lookupBenchCases) {
      const got = handleLookup(indexed, c);
      const sameAnswer = got.body === handleLookup(linear, c).body;
      rows.push({
        documents,
        name: c.name,
        rows: got.hits.length,
        sameAnswer,
        indexed: time(() => handleLookup(indexed, c), 500),
        linear: time(() => handleLookup(linear, c), linearIterations),
      });
    }
    updates.push({ documents, ...updateMicros(catalog, entries) });
  }
  return { rows, buildMs, updateMicros: updates };
}

export function printLookupBenchmark(result: LookupBenchResult): void {
  const ms = (value: number) => value.toFixed(3).padStart(8);
  console.log('LOOKUP (handler level, no QUIC): indexed catalog vs linear scan, same corpus, same run');
  console.log('docs     case            rows  indexed p50  p99       linear p50  p99       p50 ratio');
  for (const row of result.rows) {
    const ratio = row.linear.p50Ms / Math.max(row.indexed.p50Ms, 1e-6);
    const flag = row.sameAnswer ? '' : '  (ANSWERS DIFFER)';
    console.log(
      `${String(row.documents).padEnd(8)} ${row.name.padEnd(15)} ${String(row.rows).padStart(4)}  ${ms(row.indexed.p50Ms)} ${ms(row.indexed.p99Ms)}  ${ms(row.linear.p50Ms)} ${ms(row.linear.p99Ms)}  ${ratio.toFixed(0).padStart(7)}x${flag}`,
    );
  }
  for (const build of result.buildMs)
    console.log(
      `catalog build from ${build.documents} in-memory entries: ${build.medianMs.toFixed(0)} ms (median of 5)`,
    );
  for (const u of result.updateMicros)
    console.log(
      `updates at ${u.documents} documents: upsert ${u.upsert.toFixed(1)} µs, remove + re-add ${u.removeAndAdd.toFixed(1)} µs (mean of 2000)`,
    );
}

if (import.meta.main) {
  const sizesArg = process.argv.find((arg) => arg.startsWith('--sizes='));
  const sizes = sizesArg?.slice('--sizes='.length).split(',').map(Number);
  printLookupBenchmark(runLookupBenchmark(sizes === undefined ? {} : { sizes }));
}
