/**
 * Per-world fail-fast. After `failureThreshold` consecutive transport failures
 * the circuit opens: calls are refused without touching the network for
 * `cooldownMs`. Then one probe call is let through (half-open) while the others
 * keep failing fast; its success closes the circuit, its failure opens it for
 * another cool-down. Any success resets the failure count. World statuses
 * (not-found, conflict, …) are answers, not failures: callers report them as
 * successes.
 */
export type CircuitState = 'closed' | 'open' | 'half-open';

export type CircuitBreakerOptions = {
  failureThreshold: number;
  cooldownMs: number;
  /** Monotonic milliseconds; injectable so tests move time without waiting. */
  now: () => number;
  onStateChange?: (state: CircuitState) => void;
};

/** Permission to send one call; hand it back through exactly one `record*` method. */
export type CircuitTicket = { readonly probe: boolean };

export class CircuitBreaker {
  readonly #options: CircuitBreakerOptions;
  #state: CircuitState = 'closed';
  #failures = 0;
  #openedAt = 0;
  #probeInFlight = false;

  constructor(options: CircuitBreakerOptions) {
    if (!Number.isInteger(options.failureThreshold) || options.failureThreshold < 1)
      throw new RangeError('failureThreshold must be a positive integer');
    if (!(options.cooldownMs > 0)) throw new RangeError('cooldownMs must be positive');
    this.#options = options;
  }

  get state(): CircuitState {
    return this.#state;
  }

  /** A ticket to send, or null to fail fast. */
  admit(): CircuitTicket | null {
    if (this.#state === 'closed') return { probe: false };
    if (this.#probeInFlight || this.retryAfterMs() > 0) return null;
    this.#probeInFlight = true;
    this.#set('half-open');
    return { probe: true };
  }

  /** Milliseconds until an open circuit lets a probe through (0 when it would now). */
  retryAfterMs(): number {
    if (this.#state === 'closed') return 0;
    return Math.max(0, this.#openedAt + this.#options.cooldownMs - this.#options.now());
  }

  /** The world answered (any status). */
  recordSuccess(ticket: CircuitTicket): void {
    if (ticket.probe) this.#probeInFlight = false;
    this.#failures = 0;
    this.#set('closed');
  }

  /**
   * The world could not be reached or did not answer in time. A `conclusive`
   * failure (the world would not even accept a connection, after the
   * transport's own retries) opens the circuit at once: more calls would only
   * wait out the same timeout.
   */
  recordFailure(ticket: CircuitTicket, conclusive = false): void {
    if (ticket.probe) {
      this.#probeInFlight = false;
      this.#open();
      return;
    }
    if (this.#state !== 'closed') return;
    this.#failures += 1;
    if (conclusive || this.#failures >= this.#options.failureThreshold) this.#open();
  }

  /** Neither: the caller gave up, or the call never left. A probe slot is freed for the next call. */
  recordNeutral(ticket: CircuitTicket): void {
    if (ticket.probe) this.#probeInFlight = false;
  }

  #open(): void {
    this.#openedAt = this.#options.now();
    this.#failures = 0;
    this.#set('open');
  }

  #set(state: CircuitState): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#options.onStateChange?.(state);
  }
}
