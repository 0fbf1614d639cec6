/**
 * Work cut into slices, so a long query can give its thread back between them.
 *
 * A query is written once, as a generator that yields between bounded pieces of
 * work (a few thousand postings, documents or sections). The synchronous
 * wrappers in this folder (`SearchIndex.search`, `nearestTitles`, …), which the
 * benches and tests call, run it whole (`runWhole`: the yields are ignored). A
 * world serving requests runs it with `runSliced`: after about `sliceMs` of work it
 * waits for the event loop's check phase (setImmediate), so other clients'
 * requests and this request's own reset are handled, then checks the request's
 * signal and goes on. A 5,000-document body LOOKUP held the world's loop for
 * 0.1-1.3 s before (docs/benchmarks.md, "2026-12-07 (ninth session)").
 *
 * Between two slices the index may change (a publish, an archive, a compaction
 * renumbering documents). A query does not read across such a change: `stale`
 * tells, and the query starts again from nothing. After `maxRestarts` it is run
 * whole, so steady writes cannot starve it; that run holds the loop as before.
 */
import { setImmediate as nextTurn } from 'node:timers/promises';

/** A computation that yields between slices of bounded work and returns T. */
export type Sliced<T> = Generator<void, T, undefined>;

/** Pieces of work (postings, documents, sections) between two yields. */
export const workPerYield = 2048;

/**
 * Work units of one document's admit test (catalog, scope, filter, read-auth in a
 * world), against a posting's 1. Counted whether the document is admitted or not,
 * so a caller who may see few documents still yields while the rest are tested.
 */
export const admitWork = 16;

/** Counts work and says when a yield is due (every `per` units). */
export class WorkMeter {
  #done = 0;
  readonly #per: number;

  constructor(per = workPerYield) {
    this.#per = per;
  }

  /** Adds `units`; true when the work since the last yield reached `per`. */
  spend(units = 1): boolean {
    this.#done += units;
    if (this.#done < this.#per) return false;
    this.#done = 0;
    return true;
  }
}

/** Runs `work` to its end in this turn, ignoring its yields. */
export function runWhole<T>(work: Sliced<T>): T {
  for (;;) {
    const step = work.next();
    if (step.done) return step.value;
  }
}

export interface SliceOptions {
  /** Checked at every turn given back: once aborted, the work stops with its reason. */
  signal?: AbortSignal | undefined;
  /** Work done before the loop gets a turn (default 5 ms). */
  sliceMs?: number;
  /** True when what the work reads changed since `start` was called. */
  stale?: () => boolean;
  /** Restarts after a change before the work is run whole (default 2). */
  maxRestarts?: number;
}

const defaultSliceMs = 5;

/**
 * Runs the work `start` makes in slices of about `sliceMs`, giving the event loop
 * a turn between them. Starts it again when `stale()` says its input changed while
 * it waited; after `maxRestarts` such changes, runs it whole.
 */
export async function runSliced<T>(start: () => Sliced<T>, options: SliceOptions = {}): Promise<T> {
  const { signal, sliceMs = defaultSliceMs, stale, maxRestarts = 2 } = options;
  signal?.throwIfAborted();
  for (let restarts = 0; ; restarts++) {
    const work = start();
    if (restarts >= maxRestarts) return runWhole(work);
    try {
      const value = await sliceThrough(work, sliceMs, signal, stale);
      if (value.done) return value.value;
    } finally {
      // Lets the work's own `finally` run (it gives back its scratch) when it stopped early.
      work.return(undefined as T);
    }
  }
}

/** One attempt: the work's result, or not done when its input changed under it. */
async function sliceThrough<T>(
  work: Sliced<T>,
  sliceMs: number,
  signal: AbortSignal | undefined,
  stale: (() => boolean) | undefined,
): Promise<{ done: true; value: T } | { done: false }> {
  let sliceStart = performance.now();
  for (;;) {
    const step = work.next();
    if (step.done) return { done: true, value: step.value };
    if (performance.now() - sliceStart < sliceMs) continue;
    await nextTurn();
    signal?.throwIfAborted();
    if (stale?.()) return { done: false };
    sliceStart = performance.now();
  }
}

/**
 * Calls `each(from, to)` over [0, count) in pieces of at most `workPerYield`,
 * yielding whenever `meter` has counted a slice's worth of work.
 */
export function* inPieces(count: number, meter: WorkMeter, each: (from: number, to: number) => void): Sliced<void> {
  for (let from = 0; from < count; from += workPerYield) {
    const to = Math.min(count, from + workPerYield);
    each(from, to);
    if (meter.spend(to - from)) yield;
  }
}
