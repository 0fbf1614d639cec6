import {
  decodeQueryStats,
  encodeNearest,
  encodeQueryStats,
  encodeScores,
  lookupExtensionKeys as keys,
  LookupExtensionError,
  parseNearestCount,
  ownStatsValue,
  runSliced,
  SearchIndex,
  statsOnlyValue,
  type MatchMode,
  type QueryStats,
  type SearchRow,
  type Sliced,
} from '../search/index.ts';
import { baseName } from '../protocol/paths.ts';
import type { Metadata } from '../protocol/metadata.ts';
import type { LookupRow } from '../protocol/render/lookup.ts';
import { isUnderScope, matchesFilter, type Catalog, type Predicate } from './catalog/index.ts';
import type { DocState } from './store/index.ts';

export type BodySearchOptions = {
  scope: string;
  filter: readonly Predicate[];
  /** Read-auth per row, asked before the limit. */
  allow: (path: string) => boolean;
  limit: number;
  /** The request's signal (client gone, deadline passed, listener closing): the search stops between slices. */
  signal?: AbortSignal | undefined;
};

/** Rows plus the extension keys to add to the response metadata. */
export type BodyAnswer = { rows: LookupRow[]; metadata: Metadata };

/** What the request asked of our LOOKUP extension (src/search/lookup-extension.ts). */
type Extension = {
  mode: MatchMode;
  echoTerms: boolean;
  statsOnly: boolean;
  stats?: QueryStats;
  /** Also answer this world's own statistics beside rows scored with `stats`. */
  ownStats: boolean;
  nearest?: number;
};

/**
 * LOOKUP `match: body` (Go `server/internal/catalog/bodymatch.go`) over the lexical ranker in src/search:
 * section rows `path#anchor` titled `Doc › Heading`, or one bare-path row when
 * tags and title alone carry every term. Titles, tags and filters come from the
 * catalog entry, so both LOOKUP modes agree on what a document is called.
 * Kept current from the same change feed as the catalog.
 *
 * Without extension keys the answer is exactly the Go `bodymatch.go` contract: every query
 * term is found for each row. The optional keys (relaxed `match-terms: any`,
 * corpus statistics and scores for a cross-world merge, nearest titles) are
 * answered in `lookup`; every number they reveal is counted over the documents
 * this caller may read in this scope, never over hidden ones.
 *
 * A lookup runs in slices of a few ms (src/search/slices.ts), so the world's other
 * requests are served while it runs, and it stops between slices once its request
 * is abandoned (test/world/lookup-abandonment.test.ts).
 */
export class BodyIndex {
  readonly #index = new SearchIndex();
  readonly #catalog: Catalog;

  constructor(catalog: Catalog) {
    this.#catalog = catalog;
  }

  /** Call after the catalog has taken the same document. */
  upsert(doc: DocState): void {
    const entry = this.#catalog.get(doc.path);
    if (entry === undefined) {
      this.remove(doc.path);
      return;
    }
    const description = doc.current.metadata.description;
    this.#index.upsert({
      id: doc.path,
      title: entry.title,
      name: baseName(doc.path),
      ...(description ? { description } : {}),
      tags: [...entry.tags],
      importance: entry.importance,
      body: Buffer.from(doc.current.body).toString(),
    });
  }

  remove(path: string): void {
    this.#index.remove(path);
  }

  /**
   * A body LOOKUP: without extension keys, the plain Go `bodymatch.go` match ranked with this
   * world's statistics; a string is the bad-request message. Rejects with the
   * signal's reason once `options.signal` aborts.
   */
  lookup(query: string, request: Metadata, options: BodySearchOptions): Promise<BodyAnswer | string> {
    let ext: Extension;
    try {
      ext = parseExtension(request);
    } catch (error) {
      if (error instanceof LookupExtensionError) return Promise.resolve(error.message);
      throw error;
    }
    // The index generation the current start read from; runSliced calls start before it asks stale.
    let generation: number;
    return runSliced(
      () => {
        generation = this.#index.generation;
        return this.#answer(query, ext, options);
      },
      { signal: options.signal, stale: () => this.#index.generation !== generation },
    );
  }

  *#answer(query: string, ext: Extension, options: BodySearchOptions): Sliced<BodyAnswer> {
    const admit = this.#admitter(options);
    const metadata: Metadata = ext.echoTerms ? { [keys.matchTerms]: ext.mode } : {};
    if (ext.statsOnly || ext.ownStats)
      Object.assign(metadata, encodeQueryStats(yield* this.#index.queryStatsSteps(query, { admit })));
    if (ext.statsOnly) return { rows: [], metadata };
    const found = yield* this.#index.searchSteps(query, {
      limit: options.limit,
      mode: ext.mode,
      allow: admit,
      ...(ext.stats && { globalStats: ext.stats }),
    });
    // Scores only under caller-supplied statistics: a score computed with this
    // world's own df would also count documents the caller cannot read.
    if (ext.stats) metadata[keys.rowScores] = encodeScores(found.map((row) => row.score));
    if (found.length === 0 && ext.nearest !== undefined) {
      const help = yield* this.#index.zeroResultHelpSteps(query, { limit: ext.nearest, allow: admit });
      metadata[keys.nearestTitles] = encodeNearest(
        help.nearest.map((n) => ({ path: n.id, title: n.title, similarity: n.similarity })),
      );
      if (help.languageHint !== undefined) metadata[keys.languageHint] = help.languageHint;
    }
    // Rows in the same slice as the search's last step: the catalog read here is the one it ranked.
    return { rows: found.map((row) => this.#toLookupRow(row)), metadata };
  }

  /** Scope, filter and read-auth in one test, for rows, statistics and suggestions alike. */
  #admitter(options: BodySearchOptions): (path: string) => boolean {
    return (path) => {
      const entry = this.#catalog.get(path);
      return (
        entry !== undefined &&
        isUnderScope(path, options.scope) &&
        matchesFilter(entry, options.filter) &&
        options.allow(path)
      );
    };
  }

  #toLookupRow(row: SearchRow): LookupRow {
    const entry = this.#catalog.get(row.id);
    return {
      path: row.id,
      ...(row.anchor ? { anchor: row.anchor } : {}),
      importance: entry?.importance ?? 0.5,
      title: row.heading ? `${row.docTitle} › ${row.heading}` : row.docTitle,
      tags: entry?.tags ?? [],
      snippet: row.snippet,
    };
  }
}

function parseExtension(request: Metadata): Extension {
  const terms = request[keys.matchTerms];
  if (terms !== undefined && terms !== 'all' && terms !== 'any')
    throw new LookupExtensionError(`${keys.matchTerms} must be "all" or "any", got "${terms}"`);
  const ext: Extension = {
    mode: terms === 'any' ? 'any' : 'all',
    echoTerms: terms !== undefined,
    statsOnly: false,
    ownStats: false,
  };
  const stats = request[keys.corpusStats];
  const df = request[keys.corpusDf];
  if (stats === statsOnlyValue) ext.statsOnly = true;
  else if (stats !== undefined) ext.stats = decodeQueryStats(stats, df ?? '');
  else if (df !== undefined) throw new LookupExtensionError(`${keys.corpusDf} needs ${keys.corpusStats}`);
  const own = request[keys.ownStats];
  if (own !== undefined) {
    if (own !== ownStatsValue)
      throw new LookupExtensionError(`${keys.ownStats} must be "${ownStatsValue}", got "${own}"`);
    // Own statistics check the ones the rows were scored with; alone they are phase one's `only`.
    if (ext.stats === undefined) throw new LookupExtensionError(`${keys.ownStats} needs ${keys.corpusStats}`);
    ext.ownStats = true;
  }
  const nearest = parseNearestCount(request[keys.nearestTitles]);
  if (nearest !== undefined) ext.nearest = nearest;
  return ext;
}
