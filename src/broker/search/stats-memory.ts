import { dfOf, type CorpusTotals, type QueryStats } from '../../search/index.ts';

/**
 * The statistics each world last reported for a caller's searches, kept so the
 * next search can score in one round instead of two (search-worlds.ts).
 *
 * Only a guess: a world scores with the remembered sums and answers its own
 * statistics beside the rows (`own-stats`), and the broker keeps those rows only
 * when the fresh sums equal the guess; otherwise it asks again with the fresh
 * sums, as the two-phase search always did. So what is remembered can make a
 * search cheaper or dearer, never different.
 *
 * Entries are per caller (subject), scope and filter, because a world counts only
 * the documents that caller may read there: one caller's numbers are never sent
 * on another's behalf, even as a guess. Within an entry, df is kept per term, so
 * a later question made of words already asked about needs no first round either.
 */
export type StatsScope = { subject: string; scope: string; filter?: string | undefined };

/**
 * What a world reported: its statistics; `null` for a world that answers without
 * them (Go); `unchecked` for a world of ours that scores but does not answer
 * `own-stats` (an older version), which only the two-phase search suits.
 */
export type RememberedStats = QueryStats | null | 'unchecked';

type Entry =
  | { kind: 'none' }
  | { kind: 'unchecked'; until: number }
  | { kind: 'stats'; totals: CorpusTotals; df: Map<string, number> };

/** How long a world stays known as unchecked: long enough to skip a wasted round, short enough to see an upgrade. */
const uncheckedMs = 10 * 60_000;

export type StatsMemoryOptions = {
  /** Caller × scope × filter × world entries kept; when full, the caller holding most loses its oldest. */
  maxEntries?: number;
  /** Terms remembered per entry; the oldest go first. */
  maxTermsPerEntry?: number;
  /** The clock that ends an `unchecked` mark (tests move it). */
  now?: () => number;
};

export const statsMemoryDefaults = { maxEntries: 4096, maxTermsPerEntry: 128 } as const;

/**
 * One store for every caller of the broker process, so its bound is shared the
 * way refresh-token families are (src/broker/auth/tokens/refresh-tokens.ts):
 * when it is full, the caller who holds the most entries gives up their least
 * recently used one. A caller who searches under a new filter every time thus
 * churns through their own entries and never pushes out another's
 * (test/security/search-stats-fairness.test.ts); a caller alone may use it all.
 */
export class SearchStatsMemory {
  /** Per subject, its entries by key, least recently used first (a Map keeps insertion order). */
  readonly #bySubject = new Map<string, Map<string, Entry>>();
  #size = 0;
  readonly #maxEntries: number;
  readonly #maxTerms: number;
  readonly #now: () => number;

  constructor(options: StatsMemoryOptions = {}) {
    this.#maxEntries = options.maxEntries ?? statsMemoryDefaults.maxEntries;
    this.#maxTerms = options.maxTermsPerEntry ?? statsMemoryDefaults.maxTermsPerEntry;
    this.#now = options.now ?? Date.now;
  }

  /**
   * What `world` is expected to report for `terms`: its statistics, `null` when it
   * reports none, or undefined when nothing is known about one of the terms.
   */
  recall(where: StatsScope, world: string, terms: readonly string[]): QueryStats | null | undefined {
    const entry = this.#get(where, world);
    if (entry === undefined || entry.kind === 'unchecked') return undefined;
    if (entry.kind === 'none') return null;
    const df = Object.create(null) as Record<string, number>;
    for (const term of terms) {
      const n = entry.df.get(term);
      if (n === undefined) return undefined;
      df[term] = n;
    }
    return { totals: { ...entry.totals }, df };
  }

  /**
   * What `world` just reported. Totals that moved make every remembered df of the
   * world suspect, so they go. Statistics from phase one do not clear a world
   * known as unchecked: it would fail the next checked round again.
   */
  remember(where: StatsScope, world: string, stats: RememberedStats): void {
    const old = this.#get(where, world);
    if (stats === 'unchecked') {
      this.#set(where, world, { kind: 'unchecked', until: this.#now() + uncheckedMs });
      return;
    }
    if (old?.kind === 'unchecked') return;
    if (stats === null) {
      this.#set(where, world, { kind: 'none' });
      return;
    }
    const df = old?.kind === 'stats' && sameTotals(old.totals, stats.totals) ? old.df : new Map<string, number>();
    for (const [term, n] of Object.entries(stats.df)) {
      df.delete(term);
      df.set(term, n);
    }
    // A Map iterates in insertion order, and a term just reported was re-inserted: the first are the oldest.
    for (const term of df.keys()) {
      if (df.size <= this.#maxTerms) break;
      df.delete(term);
    }
    this.#set(where, world, { kind: 'stats', totals: { ...stats.totals }, df });
  }

  get size(): number {
    return this.#size;
  }

  /** The live entry, now the subject's most recently used; an unchecked mark past its time is gone. */
  #get(where: StatsScope, world: string): Entry | undefined {
    const own = this.#bySubject.get(where.subject);
    const key = keyOf(where, world);
    const entry = own?.get(key);
    if (own === undefined || entry === undefined) return undefined;
    own.delete(key);
    if (entry.kind === 'unchecked' && entry.until <= this.#now()) {
      this.#forgot(where.subject, own);
      return undefined;
    }
    own.set(key, entry);
    return entry;
  }

  #set(where: StatsScope, world: string, entry: Entry): void {
    const key = keyOf(where, world);
    const previous = this.#bySubject.get(where.subject);
    if (previous?.delete(key) === true) this.#forgot(where.subject, previous);
    while (this.#size >= this.#maxEntries) if (!this.#evictFromLargestHolder()) break;
    // Eviction may have dropped the subject's map along with its last entry.
    let own = this.#bySubject.get(where.subject);
    if (own === undefined) {
      own = new Map();
      this.#bySubject.set(where.subject, own);
    }
    own.set(key, entry);
    this.#size += 1;
  }

  /** The least recently used entry of the subject holding the most goes; false when nothing is held. */
  #evictFromLargestHolder(): boolean {
    let largest: [string, Map<string, Entry>] | undefined;
    for (const held of this.#bySubject) if (largest === undefined || held[1].size > largest[1].size) largest = held;
    if (largest === undefined) return false;
    const [subject, own] = largest;
    const oldest = own.keys().next();
    if (!oldest.done) own.delete(oldest.value);
    this.#forgot(subject, own);
    return true;
  }

  /** Counts one entry gone from `own`, and drops a subject left with none. */
  #forgot(subject: string, own: Map<string, Entry>): void {
    this.#size -= 1;
    if (own.size === 0) this.#bySubject.delete(subject);
  }
}

/**
 * Equal statistics give equal scores: the same totals and the same terms with the
 * same df. A term absent is not a df of 0: a world scores an absent term with its
 * own df (src/search/evaluate.ts).
 */
export function sameQueryStats(a: QueryStats, b: QueryStats): boolean {
  if (!sameTotals(a.totals, b.totals)) return false;
  const terms = Object.keys(a.df);
  if (terms.length !== Object.keys(b.df).length) return false;
  return terms.every((term) => dfOf(b.df, term) === a.df[term]);
}

function sameTotals(a: CorpusTotals, b: CorpusTotals): boolean {
  for (const key of Object.keys(a) as (keyof CorpusTotals)[]) if (a[key] !== b[key]) return false;
  return true;
}

function keyOf(where: StatsScope, world: string): string {
  // JSON keeps the parts apart whatever characters they hold.
  return JSON.stringify([where.subject, world, where.scope, where.filter ?? '']);
}
