import { FairGate } from '../worlds/fair-gate.ts';

/** Documents re-read at once after changes worlds reported, over all worlds. */
export const refreshWorkers = 4;
/**
 * Of those, the most one world's refreshes hold, so a world that answers
 * slowly (but inside the request timeout, so its circuit stays closed) leaves
 * the other workers to the other worlds.
 */
export const refreshWorkersPerWorld = 2;
/**
 * Refreshes one world may have waiting behind its workers. The world decides
 * how many change notices it sends; past this the oldest waiting one is set
 * aside (owed) and read once the world's line has drained.
 */
export const refreshesWaitingPerWorld = 64;
/**
 * Refreshes one world may owe: set aside past its waiting cap, or every
 * document the graph read from it after a resync (a WATCH that cannot say what
 * changed). Past this the oldest owed one is forgotten for good and the world's
 * next `/graph.md` seeding is all that stands in for it.
 */
export const refreshesOwedPerWorld = 1024;

export type RefreshQueueEvents = {
  /** `world`'s oldest owed refresh was forgotten to make room: its next seeding must cover it. */
  forgotten(world: string): void;
  /** `world` first went past its waiting cap since its waiting refreshes last drained (said once, not per notice). */
  overflowed(world: string): void;
  /** An owed refresh, read once its world's line drained, failed (no caller waits for it to say so). */
  failed(world: string, key: string, error: unknown): void;
};

type Read = () => Promise<void>;
type Waiting = { done: Promise<void>; forget: AbortController; read: Read };

/**
 * The graph's refreshes after world changes, one line per world: a URL
 * already waiting is not queued twice, each world holds at most
 * `refreshWorkersPerWorld` of the `refreshWorkers` workers, and a freed worker
 * goes to the next world in turn (the FairGate round robin that admits callers
 * to a world's streams, src/broker/worlds/fair-gate.ts, here with worlds as the
 * callers). So a slow or chatty world's refreshes queue behind its own, as
 * src/broker/worlds/world-connection.ts promises for its callers. What a world
 * owes (set aside past its waiting cap, or owed after a resync) goes back in
 * its line when the line drains, a waiting cap's worth at a time, so owed
 * re-reads take turns with every other world's as the first ones did.
 */
export class RefreshQueue {
  readonly #gate = new FairGate({ capacity: refreshWorkers, perCaller: refreshWorkersPerWorld });
  /** Per world, its waiting refreshes by key, oldest first (a Map keeps insertion order). */
  readonly #waiting = new Map<string, Map<string, Waiting>>();
  /** Per world, the refreshes it owes by key, oldest first. */
  readonly #owed = new Map<string, Map<string, Read>>();
  /** Per world, every refresh scheduled and not yet settled (waiting or running). */
  readonly #pending = new Map<string, Set<Promise<void>>>();
  /** Worlds past their cap since their waiting refreshes last drained. */
  readonly #overflowing = new Set<string>();
  readonly #events: RefreshQueueEvents;

  constructor(events: RefreshQueueEvents) {
    this.#events = events;
  }

  /**
   * Resolves once `world` has nothing waiting, running or owed: every refresh
   * scheduled, set aside or owed by then has been read (or forgotten past the
   * owed cap). Only tests wait on it (through BrokerGraph.refreshesSettled):
   * owed and set-aside reads have no caller to resolve, so it is their one way
   * to know the line drained; shutdown does not wait, nor need callers of `schedule`.
   */
  async settled(world: string): Promise<void> {
    for (;;) {
      const pending = this.#pending.get(world);
      if (pending === undefined || pending.size === 0) return;
      await Promise.allSettled(pending);
    }
  }

  /**
   * Runs `read` for `key` in `world`'s line. Resolves when it ran, or when it
   * was set aside to make room (it is then owed and read once the line
   * drains; no caller waits for that).
   */
  schedule(world: string, key: string, read: Read): Promise<void> {
    const line = this.#waiting.get(world);
    const already = line?.get(key);
    if (already !== undefined) return already.done;
    // This read covers an owed one for the same document.
    this.#owed.get(world)?.delete(key);
    const release = this.#gate.tryAcquire(world);
    const done =
      release !== undefined ? this.#run(read, release) : this.#wait(world, line ?? this.#newLine(world), key, read);
    this.#track(world, done);
    return done;
  }

  /**
   * `world` owes a read of each of `reads` (keyed as `schedule` keys them): the
   * world resynced, so any document the graph read from it may have changed.
   * They join its line now if it has none, else when it drains.
   */
  owe(world: string, reads: ReadonlyMap<string, Read>): void {
    const line = this.#waiting.get(world);
    for (const [key, read] of reads) if (line?.has(key) !== true) this.#setAside(world, key, read);
    if (line === undefined) this.#repay(world);
  }

  #newLine(world: string): Map<string, Waiting> {
    const line = new Map<string, Waiting>();
    this.#waiting.set(world, line);
    return line;
  }

  #track(world: string, done: Promise<void>): void {
    let pending = this.#pending.get(world);
    if (pending === undefined) {
      pending = new Set();
      this.#pending.set(world, pending);
    }
    pending.add(done);
    const settle = () => {
      pending.delete(done);
      if (pending.size === 0 && this.#pending.get(world) === pending) this.#pending.delete(world);
    };
    // Its caller sees a failure; this bookkeeping must not add an unhandled one.
    done.then(settle, settle);
  }

  #wait(world: string, line: Map<string, Waiting>, key: string, read: Read): Promise<void> {
    if (line.size >= refreshesWaitingPerWorld) this.#setAsideOldest(world, line);
    const forget = new AbortController();
    const entry: Waiting = {
      forget,
      read,
      done: this.#gate.acquire(world, forget.signal).then(
        (release) => {
          this.#leave(world, line, key, entry);
          // Set aside between the grant and this turn: give the worker back unused.
          if (forget.signal.aborted) return release();
          return this.#run(read, release);
        },
        () => {}, // set aside while waiting: settled, see #setAsideOldest
      ),
    };
    line.set(key, entry);
    return entry.done;
  }

  async #run(read: Read, release: () => void): Promise<void> {
    try {
      await read();
    } finally {
      release();
    }
  }

  #setAsideOldest(world: string, line: Map<string, Waiting>): void {
    const [key, oldest] = line.entries().next().value!;
    line.delete(key);
    oldest.forget.abort();
    this.#setAside(world, key, oldest.read);
    if (this.#overflowing.has(world)) return;
    this.#overflowing.add(world);
    this.#events.overflowed(world);
  }

  /** Owes `read`, newest last; past the owed cap the oldest owed one is forgotten for good. */
  #setAside(world: string, key: string, read: Read): void {
    let owed = this.#owed.get(world);
    if (owed === undefined) {
      owed = new Map();
      this.#owed.set(world, owed);
    }
    owed.delete(key);
    owed.set(key, read);
    if (owed.size <= refreshesOwedPerWorld) return;
    owed.delete(owed.keys().next().value!);
    this.#events.forgotten(world);
  }

  /**
   * Puts up to a waiting cap's worth of what `world` owes back in its line.
   * With more owed, more than a world's workers are scheduled, so a line
   * forms, and its draining repays the rest.
   */
  #repay(world: string): void {
    const owed = this.#owed.get(world);
    if (owed === undefined) return;
    const batch = [...owed].slice(0, refreshesWaitingPerWorld);
    for (const [key] of batch) owed.delete(key);
    if (owed.size === 0) this.#owed.delete(world);
    for (const [key, read] of batch)
      this.schedule(world, key, read).catch((error: unknown) => this.#events.failed(world, key, error));
  }

  /** A waiting refresh got its worker (from here a newer change needs a read of its own). */
  #leave(world: string, line: Map<string, Waiting>, key: string, entry: Waiting): void {
    if (line.get(key) === entry) line.delete(key);
    if (line.size > 0 || this.#waiting.get(world) !== line) return;
    this.#waiting.delete(world);
    this.#overflowing.delete(world);
    this.#repay(world);
  }
}
