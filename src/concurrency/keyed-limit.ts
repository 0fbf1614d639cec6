/**
 * Too many of one key's calls were already waiting: the caller is told to
 * slow down instead of queueing without bound. Its message is written for
 * the caller (it names only the caller's own numbers).
 */
export class QueueFullError extends Error {
  override readonly name = 'QueueFullError';
}

export type KeyedLimitOptions = {
  /** Calls one key may run at once while no other key is active. */
  inFlight: number;
  /**
   * Calls one key may run at once while another key is active (has a call
   * running or waiting, or finished one within `activeWindowMs`). Defaults to
   * `inFlight`, which makes the bound fixed.
   */
  inFlightShared?: number;
  /** How long a key still counts as active after its last call ended (ms); default 1000. */
  activeWindowMs?: number;
  /** Calls one key may have waiting behind those; one more is refused with QueueFullError. */
  waiting: number;
  /** The clock, for tests. */
  now?: () => number;
};

type Waiter = { start: () => void };
type Slot = { running: number; queue: Waiter[] };

/**
 * A bound on calls in flight per key (a caller), so one caller's burst queues
 * behind itself rather than in front of everyone. The bound shrinks while
 * others are active: a caller alone may run `inFlight` calls at once, but as
 * soon as another caller shows up it starts new calls only while it runs
 * fewer than `inFlightShared`. Everything in one process shares the CPU (the
 * broker's event loop, and behind it the worlds'), so a caller's latency
 * grows with the number of other calls running beside it; capping a flood at
 * one call while someone else is served keeps that someone's latency near
 * its idle value (bench/fairness.ts), and an agent working alone keeps its
 * parallelism. A key's calls start in arrival order; a key is forgotten once
 * it has no call and its active window has passed, so the maps hold only
 * callers seen recently.
 */
export class KeyedLimit {
  readonly #inFlight: number;
  readonly #inFlightShared: number;
  readonly #waiting: number;
  readonly #windowMs: number;
  readonly #now: () => number;
  /** Keys with calls running or waiting. */
  readonly #slots = new Map<string, Slot>();
  /** Keys with no call now, by the time their last call ended, oldest first. */
  readonly #recent = new Map<string, number>();

  constructor(options: KeyedLimitOptions) {
    const counts = {
      inFlight: options.inFlight,
      inFlightShared: options.inFlightShared ?? options.inFlight,
      waiting: options.waiting,
    };
    for (const [name, value] of Object.entries(counts))
      if (!Number.isInteger(value) || value < 1)
        throw new RangeError(`${name} must be a positive integer, got ${value}`);
    const windowMs = options.activeWindowMs ?? 1000;
    if (!Number.isFinite(windowMs) || windowMs < 0)
      throw new RangeError(`activeWindowMs must be a non-negative number, got ${windowMs}`);
    this.#inFlight = counts.inFlight;
    this.#inFlightShared = Math.min(counts.inFlightShared, counts.inFlight);
    this.#waiting = counts.waiting;
    this.#windowMs = windowMs;
    this.#now = options.now ?? performance.now.bind(performance);
  }

  /** Calls of `key` running or waiting now (for tests and metrics). */
  usersOf(key: string): number {
    const slot = this.#slots.get(key);
    return slot === undefined ? 0 : slot.running + slot.queue.length;
  }

  /** How many calls `key` may run at once now. */
  boundFor(key: string): number {
    return this.#othersActive(key) ? this.#inFlightShared : this.#inFlight;
  }

  /** Runs `task` once `key` has a free place; a wait ends with `signal`. */
  async run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    if (signal?.aborted) throw signal.reason;
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = { running: 0, queue: [] };
      this.#slots.set(key, slot);
      this.#recent.delete(key);
    }
    if (slot.running + slot.queue.length >= this.#inFlight + this.#waiting)
      throw new QueueFullError(
        `${slot.running} of your calls are running and ${slot.queue.length} more are waiting; retry once some have answered`,
      );
    if (slot.queue.length === 0 && slot.running < this.boundFor(key)) slot.running += 1;
    else await this.#wait(key, slot, signal);
    try {
      return await task();
    } finally {
      this.#finish(key, slot);
    }
  }

  #wait(key: string, slot: Slot, signal: AbortSignal | undefined): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        const index = slot.queue.indexOf(waiter);
        if (index >= 0) slot.queue.splice(index, 1);
        this.#forgetIfIdle(key, slot);
        reject(signal!.reason);
      };
      const waiter: Waiter = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          slot.running += 1;
          resolve();
        },
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      slot.queue.push(waiter);
    });
  }

  /** One of `key`'s calls ended: start its next waiting calls up to its bound now. */
  #finish(key: string, slot: Slot): void {
    slot.running -= 1;
    const bound = this.boundFor(key);
    while (slot.queue.length > 0 && slot.running < bound) slot.queue.shift()!.start();
    this.#forgetIfIdle(key, slot);
  }

  #forgetIfIdle(key: string, slot: Slot): void {
    if (slot.running > 0 || slot.queue.length > 0) return;
    this.#slots.delete(key);
    if (this.#windowMs > 0) this.#recent.set(key, this.#now());
  }

  /** Whether a key other than `key` has a call now or had one within the window. */
  #othersActive(key: string): boolean {
    const busy = this.#slots.size - (this.#slots.has(key) ? 1 : 0);
    if (busy > 0) return true;
    const since = this.#now() - this.#windowMs;
    for (const [other, ended] of this.#recent) {
      if (ended >= since) {
        if (other !== key) return true;
        continue;
      }
      // Oldest first: everything before a recent entry has expired.
      this.#recent.delete(other);
    }
    return false;
  }
}
