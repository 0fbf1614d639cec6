import { lookupDefaultLimit } from '../../protocol/limits.ts';
import { lookupTerms } from '../../protocol/lookup-query.ts';
import { canonicalPath } from '../../protocol/paths.ts';
import { CatalogIndex } from './catalog-index.ts';
import { assertValidEntry } from './entry.ts';
import type { CatalogEntry } from './entry.ts';
import type { Predicate } from './filter.ts';
import { produceMatchAll, produceTermMatches } from './lookup-engine.ts';
import { ResultSink } from './result-sink.ts';
import type { LookupHit } from './result-sink.ts';
import { ScoreBoard } from './score-board.ts';
import { normalizeScope } from './scope.ts';

/** What to look up: the fields of a parsed LookupQuery, plus where and for whom. */
export interface LookupRequest {
  /** `*`: every document under the scope, score 0; `terms` are then ignored. */
  readonly matchAll?: boolean;
  /** Query terms as `lookupTerms` (src/protocol/lookup-query.ts) returns them; anything else is re-tokenized the same way. */
  readonly terms?: readonly string[];
  /** Defaults to `/`; normalized as catalog.NormalizeScope does. */
  readonly scope?: string;
  readonly filter?: readonly Predicate[];
  /**
   * Per-row read authorization, asked in rank order for at most the first 1000
   * rows; a denied row vanishes without a trace. Must not touch this catalog;
   * an exception aborts the lookup (the caller's "other auth error" case).
   */
  readonly allow?: (path: string) => boolean;
  /** Rows to return, ≥ 1 (default 10); the handler has already clamped it to 1000. */
  readonly limit?: number;
}

/**
 * The LOOKUP catalog (Go `server/internal/catalog`).
 *
 * It is derived state: built at world start-up from the store's current,
 * non-archived documents and updated after every write, archive and unarchive.
 * It keeps no bodies (a title is derived once, in entryFromDocument) and does
 * no authorization itself: the caller's `allow` filters rows before the limit,
 * so hidden documents neither displace nor reveal visible ones.
 */
export class Catalog {
  readonly #index: CatalogIndex;
  readonly #board = new ScoreBoard();
  #busy = false;

  constructor(entries: Iterable<CatalogEntry> = []) {
    this.#index = new CatalogIndex(mapEntries(entries, canonicalEntry));
  }

  get size(): number {
    return this.#index.size;
  }

  get(path: string): CatalogEntry | undefined {
    return this.#index.get(canonical(path))?.entry;
  }

  *entries(): IterableIterator<CatalogEntry> {
    for (const doc of this.#index.docs()) yield doc.entry;
  }

  /** Adds or replaces the entry for its (canonicalized) path. The catalog takes ownership of it. */
  upsert(entry: CatalogEntry): void {
    this.#enter();
    try {
      this.#index.upsert(canonicalEntry(entry));
    } finally {
      this.#busy = false;
    }
  }

  /** Drops the entry for a path (archive, or a document gone from the store); false if absent. */
  remove(path: string): boolean {
    this.#enter();
    try {
      return this.#index.remove(canonical(path));
    } finally {
      this.#busy = false;
    }
  }

  /**
   * Go `catalog.better`: matches ordered by score, importance, modified and
   * path; then the first 1000 of them; then `allow` per row; then `limit`.
   */
  lookup(request: LookupRequest): LookupHit[] {
    const limit = request.limit ?? lookupDefaultLimit;
    if (!Number.isInteger(limit) || limit < 1)
      throw new RangeError(`lookup limit must be an integer ≥ 1, got ${limit}`);
    const sink = new ResultSink(request.allow ?? (() => true), limit);
    const plan = { scope: normalizeScope(request.scope ?? '/'), filter: request.filter ?? [] };
    this.#enter();
    try {
      if (request.matchAll === true) produceMatchAll(this.#index, plan, sink);
      else {
        const terms = lookupTerms((request.terms ?? []).join(' '));
        if (terms.length > 0) produceTermMatches(this.#index, this.#board, terms, plan, sink);
      }
    } finally {
      this.#busy = false;
    }
    return sink.hits;
  }

  /** Lookups share scratch state and walk live lists, so `allow` must not re-enter the catalog. */
  #enter(): void {
    if (this.#busy) throw new Error('catalog: re-entered from inside a lookup (allow must not use the catalog)');
    this.#busy = true;
  }
}

function canonicalEntry(entry: CatalogEntry): CatalogEntry {
  assertValidEntry(entry);
  const path = canonical(entry.path);
  return path === entry.path ? entry : Object.freeze({ ...entry, path });
}

const nonCanonical = /\/\/|\/\.\.?(?:\/|$)|.\/$/;

/** catalog.Set canonicalises paths; store paths already are, so skip the rebuild for them. */
function canonical(path: string): string {
  return nonCanonical.test(path) ? canonicalPath(path) : path;
}

function* mapEntries<T, U>(items: Iterable<T>, map: (item: T) => U): Iterable<U> {
  for (const item of items) yield map(item);
}
