import { Semaphore } from './semaphore.ts';

/**
 * Too many of one key's calls were already waiting: the caller is told to
 * slow down instead of queueing without bound. Its message is written for
 * the caller (it names only the caller's own numbers).
 */
export class QueueFullError extends Error {
  override readonly name = 'QueueFullError';
}

export type KeyedLimitOptions = {
  /** Calls one key may run at once. */
  inFlight: number;
  /** Calls one key may have waiting behind those; one more is refused with QueueFullError. */
  waiting: number;
};

type Slot = { semaphore: Semaphore; users: number };

/**
 * A bound on calls in flight per key (a caller), so one caller's burst queues
 * behind itself rather than in front of everyone: each key gets its own FIFO
 * `Semaphore`, created on first use and forgotten once no call holds or
 * awaits it, so the map holds only callers with calls under way.
 */
export class KeyedLimit {
  readonly #options: KeyedLimitOptions;
  readonly #slots = new Map<string, Slot>();

  constructor(options: KeyedLimitOptions) {
    for (const [name, value] of Object.entries(options))
      if (!Number.isInteger(value) || value < 1)
        throw new RangeError(`${name} must be a positive integer, got ${value}`);
    this.#options = options;
  }

  /** Calls of `key` running or waiting now (for tests and metrics). */
  usersOf(key: string): number {
    return this.#slots.get(key)?.users ?? 0;
  }

  /** Runs `task` once `key` has a free place; a wait ends with `signal`. */
  async run<T>(key: string, task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    let slot = this.#slots.get(key);
    if (slot === undefined) {
      slot = { semaphore: new Semaphore(this.#options.inFlight), users: 0 };
      this.#slots.set(key, slot);
    }
    if (slot.users >= this.#options.inFlight + this.#options.waiting)
      throw new QueueFullError(
        `${this.#options.inFlight} of your calls are running and ${this.#options.waiting} more are waiting; retry once some have answered`,
      );
    slot.users += 1;
    try {
      await slot.semaphore.acquire(signal);
      try {
        return await task();
      } finally {
        slot.semaphore.release();
      }
    } finally {
      slot.users -= 1;
      if (slot.users === 0) this.#slots.delete(key);
    }
  }
}
