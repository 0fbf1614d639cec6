/**
 * The one concurrency limiter: a counting semaphore, FIFO, whose waits can be
 * abandoned through an AbortSignal. The transport holds one permit per open
 * stream; `runPool` and `boundedMap` (./pool.ts) hold one per call in flight.
 */
export class Semaphore {
  #free: number;
  readonly #waiters: Array<() => void> = [];

  constructor(permits: number) {
    if (!Number.isInteger(permits) || permits < 1)
      throw new RangeError(`permits must be a positive integer: ${permits}`);
    this.#free = permits;
  }

  /** Resolves once a permit is held; the caller must `release()` it exactly once. */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    if (this.#free > 0) {
      this.#free -= 1;
      return Promise.resolve();
    }
    if (signal === undefined) return new Promise<void>((resolve) => this.#waiters.push(resolve));
    return new Promise<void>((resolve, reject) => {
      const grant = (): void => {
        signal.removeEventListener('abort', onAbort);
        resolve();
      };
      const onAbort = (): void => {
        const index = this.#waiters.indexOf(grant);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#waiters.push(grant);
    });
  }

  release(): void {
    const next = this.#waiters.shift();
    if (next) next();
    else this.#free += 1;
  }
}
