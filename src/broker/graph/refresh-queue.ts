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
 * how many change notices it sends; past this the oldest waiting one is
 * forgotten, and the world's next `/graph.md` seeding stands in for it.
 */
export const refreshesWaitingPerWorld = 64;

export type RefreshQueueEvents = {
  /** `world`'s oldest waiting refresh was forgotten to make room: its next seeding must cover it. */
  forgotten(world: string): void;
  /** `world` first went past its cap since its waiting refreshes last drained (said once, not per notice). */
  overflowed(world: string): void;
};

type Waiting = { done: Promise<void>; forget: AbortController };

/**
 * The graph's refreshes after world changes, one line per world: a URL
 * already waiting is not queued twice, each world holds at most
 * `refreshWorkersPerWorld` of the `refreshWorkers` workers, and a freed worker
 * goes to the next world in turn (the FairGate round robin that admits callers
 * to a world's streams, src/broker/worlds/fair-gate.ts, here with worlds as the
 * callers). So a slow or chatty world's refreshes queue behind its own, as
 * src/broker/worlds/world-connection.ts promises for its callers.
 */
export class RefreshQueue {
  readonly #gate = new FairGate({ capacity: refreshWorkers, perCaller: refreshWorkersPerWorld });
  /** Per world, its waiting refreshes by key, oldest first (a Map keeps insertion order). */
  readonly #waiting = new Map<string, Map<string, Waiting>>();
  /** Worlds past their cap since their waiting refreshes last drained. */
  readonly #overflowing = new Set<string>();
  readonly #events: RefreshQueueEvents;

  constructor(events: RefreshQueueEvents) {
    this.#events = events;
  }

  /**
   * Runs `read` for `key` in `world`'s line. Resolves when it ran, or when it
   * was forgotten to make room (a forgotten refresh is no failure: the
   * `forgotten` event says so once per world and the seeding covers it).
   */
  schedule(world: string, key: string, read: () => Promise<void>): Promise<void> {
    const line = this.#waiting.get(world);
    const already = line?.get(key);
    if (already !== undefined) return already.done;
    const release = this.#gate.tryAcquire(world);
    if (release !== undefined) return this.#run(read, release);
    return this.#wait(world, line ?? this.#newLine(world), key, read);
  }

  #newLine(world: string): Map<string, Waiting> {
    const line = new Map<string, Waiting>();
    this.#waiting.set(world, line);
    return line;
  }

  #wait(world: string, line: Map<string, Waiting>, key: string, read: () => Promise<void>): Promise<void> {
    if (line.size >= refreshesWaitingPerWorld) this.#forgetOldest(world, line);
    const forget = new AbortController();
    const entry: Waiting = {
      forget,
      done: this.#gate.acquire(world, forget.signal).then(
        (release) => {
          this.#leave(world, line, key, entry);
          // Forgotten between the grant and this turn: give the worker back unused.
          if (forget.signal.aborted) return release();
          return this.#run(read, release);
        },
        () => {}, // forgotten while waiting: settled, see #forgetOldest
      ),
    };
    line.set(key, entry);
    return entry.done;
  }

  async #run(read: () => Promise<void>, release: () => void): Promise<void> {
    try {
      await read();
    } finally {
      release();
    }
  }

  #forgetOldest(world: string, line: Map<string, Waiting>): void {
    const [key, oldest] = line.entries().next().value!;
    line.delete(key);
    oldest.forget.abort();
    this.#events.forgotten(world);
    if (this.#overflowing.has(world)) return;
    this.#overflowing.add(world);
    this.#events.overflowed(world);
  }

  /** A waiting refresh got its worker (from here a newer change needs a read of its own). */
  #leave(world: string, line: Map<string, Waiting>, key: string, entry: Waiting): void {
    if (line.get(key) === entry) line.delete(key);
    if (line.size > 0 || this.#waiting.get(world) !== line) return;
    this.#waiting.delete(world);
    this.#overflowing.delete(world);
  }
}
