/**
 * A time limit for one piece of work, tied to the longer-lived signals it must
 * also stop for (a caller's signal, a listener's closing), and released the
 * moment the work ends.
 *
 * `AbortSignal.any([AbortSignal.timeout(ms), closing])` says the same, but each
 * use leaves its timer armed for the whole `ms` and a weak reference among
 * `closing`'s dependants until the garbage collector clears them, so a busy
 * world carries tens of thousands of both. Per request that cost 11–19 µs of
 * wall time against 1.5–2.3 µs for this class (docs/benchmarks.md, "2026-12-06
 * Request deadlines without AbortSignal.timeout and AbortSignal.any").
 */
export class Deadline {
  readonly #controller = new AbortController();
  readonly #timer: NodeJS.Timeout;
  readonly #linked: AbortSignal[] = [];
  #timedOut = false;
  readonly #onLinkedAbort = (event: Event): void => {
    this.#controller.abort((event.target as AbortSignal).reason);
  };

  /**
   * Starts the clock: `signal` aborts after `ms` with the reason
   * `AbortSignal.timeout` gives (a DOMException named TimeoutError), or as soon
   * as one of `linked` aborts, with that signal's reason.
   */
  constructor(ms: number, ...linked: Array<AbortSignal | undefined>) {
    for (const signal of linked) {
      if (signal === undefined) continue;
      if (signal.aborted) {
        this.#controller.abort(signal.reason);
        break;
      }
      signal.addEventListener('abort', this.#onLinkedAbort, { once: true });
      this.#linked.push(signal);
    }
    this.#timer = setTimeout(() => {
      this.#timedOut = true;
      this.#controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
    }, ms);
    // Like AbortSignal.timeout: a pending deadline does not keep the process alive.
    this.#timer.unref();
    if (this.#controller.signal.aborted) this.end();
  }

  get signal(): AbortSignal {
    return this.#controller.signal;
  }

  /** True once `ms` passed before `end()`, whether or not a linked signal aborted first. */
  get timedOut(): boolean {
    return this.#timedOut;
  }

  /**
   * Calls the work off before its time, from something no signal carries (a
   * peer that reset its stream): `signal` aborts with `reason`. Does nothing
   * once it has aborted.
   */
  abort(reason: unknown): void {
    this.#controller.abort(reason);
  }

  /**
   * The work goes on past `ms` (an answer streamed over time): the clock
   * stops, the linked signals and `abort` still end it. `end()` still lets go.
   */
  stopClock(): void {
    clearTimeout(this.#timer);
  }

  /** The work is over: stop the clock and let go of the linked signals. Idempotent. */
  end(): void {
    clearTimeout(this.#timer);
    for (const signal of this.#linked) signal.removeEventListener('abort', this.#onLinkedAbort);
    this.#linked.length = 0;
  }
}
