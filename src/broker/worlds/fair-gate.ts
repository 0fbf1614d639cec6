/**
 * Fair admission to one world's streams. The broker reaches a world from one
 * address over a few streams, so without this one caller's flood would queue
 * in front of everybody. Each caller (a subject) may hold at most
 * `perCaller` of the `capacity` slots, and a freed slot goes to the next
 * caller in turn (round robin over callers with waiting calls), so a caller's
 * load queues behind itself. A wait ends with the caller's signal; it never
 * counts against the world (see WorldConnection).
 */
export type FairGateOptions = { capacity: number; perCaller: number };

type Waiter = { grant: () => void };

export class FairGate {
  readonly #capacity: number;
  readonly #perCaller: number;
  #inFlight = 0;
  readonly #held = new Map<string, number>();
  /** Callers with waiting calls, in turn order; a Map keeps insertion order. */
  readonly #queues = new Map<string, Waiter[]>();

  constructor(options: FairGateOptions) {
    for (const [name, value] of Object.entries(options))
      if (!Number.isInteger(value) || value < 1)
        throw new RangeError(`${name} must be a positive integer, got ${value}`);
    this.#capacity = options.capacity;
    this.#perCaller = Math.min(options.perCaller, options.capacity);
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  heldBy(caller: string): number {
    return this.#held.get(caller) ?? 0;
  }

  /** A slot at once, when one is free and nobody waits; otherwise undefined (and nothing is queued). */
  tryAcquire(caller: string): (() => void) | undefined {
    return this.#queues.size === 0 && this.#mayTake(caller) ? this.#take(caller) : undefined;
  }

  /** Resolves with a release function once a slot is held; rejects with the signal's reason if it fires first. */
  acquire(caller: string, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const free = this.tryAcquire(caller);
    if (free !== undefined) return Promise.resolve(free);
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        grant: () => {
          signal.removeEventListener('abort', onAbort);
          resolve(this.#take(caller));
        },
      };
      const onAbort = () => {
        const queue = this.#queues.get(caller);
        const index = queue?.indexOf(waiter) ?? -1;
        if (queue !== undefined && index >= 0) {
          queue.splice(index, 1);
          if (queue.length === 0) this.#queues.delete(caller);
        }
        reject(signal.reason);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const queue = this.#queues.get(caller);
      if (queue === undefined) this.#queues.set(caller, [waiter]);
      else queue.push(waiter);
      this.#dispatch();
    });
  }

  #mayTake(caller: string): boolean {
    return this.#inFlight < this.#capacity && this.heldBy(caller) < this.#perCaller;
  }

  #take(caller: string): () => void {
    this.#inFlight += 1;
    this.#held.set(caller, this.heldBy(caller) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#inFlight -= 1;
      const left = this.heldBy(caller) - 1;
      if (left === 0) this.#held.delete(caller);
      else this.#held.set(caller, left);
      this.#dispatch();
    };
  }

  /** Hands free slots to waiting callers in turn; a served caller goes to the back of the line. */
  #dispatch(): void {
    let progressed = true;
    while (this.#inFlight < this.#capacity && progressed) {
      progressed = false;
      for (const [caller, queue] of this.#queues) {
        if (!this.#mayTake(caller)) continue;
        const waiter = queue.shift()!;
        this.#queues.delete(caller);
        if (queue.length > 0) this.#queues.set(caller, queue);
        waiter.grant();
        progressed = true;
        break;
      }
    }
  }
}
