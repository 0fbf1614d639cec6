/**
 * The search index: built once, updated per document, queried through postings.
 * Pure; each query is written once as steps (slices.ts) and offered two ways:
 * synchronous (`search`, `queryStats`, `zeroResultHelp`: benches and tests)
 * and as steps a world runs in slices between other requests (`searchSteps`,
 * `queryStatsSteps`, `zeroResultHelpSteps`: LOOKUP `match: body`,
 * src/world/body-index.ts). The answers are the same either way.
 */
import { countRecord } from './doc-record.ts';
import type { DocRecord } from './doc-record.ts';
import { documentFrequencies, evaluate } from './evaluate.ts';
import { IndexState } from './index-state.ts';
import { nearestTitleSteps } from './nearest-titles.ts';
import type { NearTitle } from './nearest-titles.ts';
import { parseQuery } from './query-terms.ts';
import type { QueryTerm } from './query-terms.ts';
import { QueryScratch } from './scratch.ts';
import { ScriptProfile } from './script-profile.ts';
import { admitWork, runWhole, WorkMeter, type Sliced } from './slices.ts';
import { SnippetTerms, snippetFor, snippetWork } from './snippet.ts';
import type { RowText } from './snippet.ts';
import { TopRows } from './top-rows.ts';
import type { Candidate } from './top-rows.ts';
import { dfOf, emptyTotals, fieldAverages } from './stats.ts';
import type { FieldAverages } from './stats.ts';
import type { CorpusTotals, QueryStats, SearchDoc, SearchOptions, SearchRow } from './types.ts';

export const defaultSearchLimit = 10;

/** Scratch kept for the next queries: one per query that ran at once, up to this many. */
const maxIdleScratch = 4;

export interface IndexStats extends CorpusTotals {
  avgFieldLengths: FieldAverages;
  /** Live documents holding exactly this token in any field. */
  df(token: string): number;
  /** Distinct tokens with at least one live document. */
  vocabularySize: number;
  /** Postings of removed or replaced documents awaiting compaction. */
  deadPostings: number;
}

export interface ZeroResultHelp {
  nearest: NearTitle[];
  /** Set when the query's script is rare in the corpus (another language?). */
  languageHint?: string;
}

export interface QueryStatsOptions {
  /** Count only documents this admits (by id). */
  admit?: (id: string) => boolean;
}

export interface ZeroResultOptions {
  /** Most titles to suggest (default 3). */
  limit?: number;
  /** Suggest only documents this admits (by id). */
  allow?: (id: string) => boolean;
}

export interface SearchIndexOptions {
  /**
   * Removal leaves postings behind; they are dropped once they outnumber live ones
   * and exceed this count (default 4096).
   */
  compactAfterDeadPostings?: number;
}

export class SearchIndex {
  readonly #state: IndexState;
  /**
   * Scratch no running query holds. A query borrows one for its whole run and gives
   * it back reset, so queries run in slices at once never share one (before, one
   * scratch per index served every query: test/search/sliced-queries.test.ts).
   */
  readonly #idleScratch: QueryScratch[] = [];

  constructor(options: SearchIndexOptions = {}) {
    this.#state = new IndexState(options.compactAfterDeadPostings);
  }

  /** Changes with every upsert, removal and compaction: steps started before a change must start again. */
  get generation(): number {
    return this.#state.generation;
  }

  get size(): number {
    return this.#state.byId.size;
  }

  has(id: string): boolean {
    return this.#state.byId.has(id);
  }

  /** Adds or replaces one document; corpus statistics follow at once. */
  upsert(doc: SearchDoc): void {
    this.#state.remove(doc.id);
    this.#state.add(doc);
  }

  /** Drops one document; false if it was not indexed. */
  remove(id: string): boolean {
    return this.#state.remove(id);
  }

  /** Drops dead postings now instead of when they outnumber live ones. */
  compact(): void {
    this.#state.compact();
  }

  stats(): IndexStats {
    const totals = { ...this.#state.totals };
    let vocabularySize = 0;
    for (const entry of this.#state.vocab.entries()) if (entry.df > 0) vocabularySize++;
    return {
      ...totals,
      avgFieldLengths: fieldAverages(totals),
      df: (token) => Math.max(0, this.#state.vocab.get(token)?.df ?? 0),
      vocabularySize,
      deadPostings: this.#state.deadPostings,
    };
  }

  /**
   * Phase one of a cross-world merge: this corpus's totals and per-term df. With
   * `admit`, both count only the documents it admits (scope, filter, read-auth),
   * so the numbers say nothing about documents the caller may not see.
   */
  queryStats(query: string, options: QueryStatsOptions = {}): QueryStats {
    return runWhole(this.queryStatsSteps(query, options));
  }

  /** queryStats as steps (slices.ts). */
  *queryStatsSteps(query: string, options: QueryStatsOptions = {}): Sliced<QueryStats> {
    const terms = parseQuery(query);
    const { admit } = options;
    if (admit === undefined) {
      const totals = { ...this.#state.totals };
      return { totals, df: yield* this.#withScratch((scratch) => documentFrequencies(this.#state, scratch, terms)) };
    }
    const { admitted, totals } = yield* this.#admitted(admit);
    const df = yield* this.#withScratch((scratch) => documentFrequencies(this.#state, scratch, terms, admitted));
    return { totals, df };
  }

  /** The live documents `admit` admits (by number), and their totals. */
  *#admitted(admit: (id: string) => boolean): Sliced<{ admitted: (num: number) => boolean; totals: CorpusTotals }> {
    const marks = new Uint8Array(this.#state.docs.length);
    const totals = emptyTotals();
    const meter = new WorkMeter();
    for (const doc of this.#liveDocs()) {
      if (meter.spend(admitWork)) yield;
      if (!admit(doc.id)) continue;
      marks[doc.num] = 1;
      countRecord(totals, doc, 1);
    }
    return { admitted: (num) => marks[num] === 1, totals };
  }

  /**
   * Supplied statistics with a df for every query term. A term the caller's
   * `corpus-df` left out is counted over the documents this search may show
   * (scope and `allow`), as queryStats counts them: counted over the whole index,
   * the row scores would tell how many hidden documents hold the word
   * (test/security/search-hidden-df.test.ts, docs/decisions.md).
   */
  *#completeStats(stats: QueryStats, terms: QueryTerm[], options: SearchOptions): Sliced<QueryStats> {
    const missing = terms.filter((term) => dfOf(stats.df, term.text) === undefined);
    const { scope, allow } = options;
    if (missing.length === 0 || (scope === undefined && allow === undefined)) return stats;
    const { admitted } = yield* this.#admitted(
      (id) => (scope === undefined || scope(id)) && (allow === undefined || allow(id)),
    );
    // No prototype: a term such as `__proto__` is an ordinary key here.
    const df = Object.assign(Object.create(null) as Record<string, number>, stats.df);
    Object.assign(
      df,
      yield* this.#withScratch((scratch) => documentFrequencies(this.#state, scratch, missing, admitted)),
    );
    return { totals: stats.totals, df };
  }

  search(query: string, options: SearchOptions = {}): SearchRow[] {
    return runWhole(this.searchSteps(query, options));
  }

  /** search as steps (slices.ts). */
  *searchSteps(query: string, options: SearchOptions = {}): Sliced<SearchRow[]> {
    const terms = parseQuery(query);
    const limit = Math.max(0, Math.floor(options.limit ?? defaultSearchLimit));
    // Mark SPEC §2.7: read-auth filters rows before the limit, so hidden documents
    // neither displace nor reveal visible ones (TopRows asks `allow` before admitting).
    const top = new TopRows(limit, options.allow);
    const globalStats = options.globalStats && (yield* this.#completeStats(options.globalStats, terms, options));
    const input = {
      terms,
      mode: options.mode ?? 'all',
      ...(options.scope && { scope: options.scope }),
      ...(globalStats && { globalStats }),
    };
    yield* this.#withScratch((scratch) =>
      evaluate(this.#state, scratch, input, (doc, section, score) => top.offer(doc, section, score)),
    );
    // Snippets only for the rows kept, with the query's stems prepared once; in slices
    // like the rest (1,000 snippets held the loop 17 ms in one piece: docs/benchmarks.md,
    // "Body LOOKUP yields to other requests"). A query resuming after another took the
    // index's run masks takes them back (SnippetTerms.masksFor).
    const snippetTerms = new SnippetTerms(this.#state.words, terms);
    const rows: SearchRow[] = [];
    const meter = new WorkMeter();
    for (const candidate of top.rows()) {
      const texts = rowTexts(candidate);
      rows.push(toRow(candidate, snippetFor(texts, snippetTerms)));
      if (meter.spend(snippetWork(texts))) yield;
    }
    return rows;
  }

  /**
   * Help for a query that found nothing: the nearest titles and a language
   * hint, both from the documents `allow` admits, so a hidden document is never
   * suggested and never counted toward the hint.
   */
  zeroResultHelp(query: string, options: ZeroResultOptions = {}): ZeroResultHelp {
    return runWhole(this.zeroResultHelpSteps(query, options));
  }

  /** zeroResultHelp as steps (slices.ts). */
  *zeroResultHelpSteps(query: string, options: ZeroResultOptions = {}): Sliced<ZeroResultHelp> {
    const { limit = 3, allow } = options;
    // Admitted as the titles are compared, so a stopped query has asked `allow`
    // only of the documents it compared (test/world/lookup-abandonment.test.ts);
    // a hidden document counts as work too (slices.ts admitWork).
    const docs: DocRecord[] = [];
    const admit = (doc: DocRecord): boolean => {
      if (allow !== undefined && !allow(doc.id)) return false;
      docs.push(doc);
      return true;
    };
    const nearest = yield* nearestTitleSteps(query, this.#liveDocs(), limit, admit);
    const corpus = new ScriptProfile();
    for (const doc of docs) corpus.add(doc.scripts);
    const hint = corpus.hintFor(parseQuery(query).map((t) => t.text));
    return hint === undefined ? { nearest } : { nearest, languageHint: hint };
  }

  *#liveDocs(): Generator<DocRecord> {
    for (const doc of this.#state.docs) if (doc !== undefined) yield doc;
  }

  /** Runs `steps` with scratch of its own, given back (reset by the steps) when they end or are stopped. */
  *#withScratch<T>(steps: (scratch: QueryScratch) => Sliced<T>): Sliced<T> {
    const docs = this.#state.docs.length;
    const sections = this.#state.sectionCapacity;
    let scratch = this.#idleScratch.pop();
    if (scratch === undefined || !scratch.fits(docs, sections))
      scratch = new QueryScratch(Math.max(docs * 2, 64), sections);
    try {
      return yield* steps(scratch);
    } finally {
      if (this.#idleScratch.length < maxIdleScratch) this.#idleScratch.push(scratch);
    }
  }
}

/** The texts a row's snippet is read from: its section, or for a bare-path row the whole document. */
function rowTexts({ doc, section }: Candidate): RowText[] {
  const own = doc.sections[section];
  return own === undefined ? bareTexts(doc) : [{ text: own.text, lines: own.lines }];
}

function toRow(candidate: Candidate, snippet: string): SearchRow {
  const { doc, section } = candidate;
  const own = doc.sections[section];
  const base = { id: doc.id, docTitle: doc.title, score: candidate.score };
  if (own === undefined) return { ...base, anchor: '', snippet };
  const row: SearchRow = { ...base, anchor: own.anchor, snippet };
  if (own.heading !== '' || own.anchor !== '') row.heading = own.heading;
  return row;
}

/**
 * A bare-path row's snippet comes from the description and then the whole body,
 * as lines (a metadata value holds no line break, so the description is one line).
 */
function bareTexts(doc: DocRecord): RowText[] {
  const texts: RowText[] = doc.sections.map((s) => ({ text: s.text, lines: s.lines }));
  if (doc.description !== '') texts.unshift({ text: doc.description });
  return texts;
}
