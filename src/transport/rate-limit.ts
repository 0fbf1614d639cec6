/**
 * Per-IP token buckets, shaped like Go's golang.org/x/time/rate as the reference
 * server uses it (server/internal/ratelimit, worldruntime): `ratePerSecond` tokens
 * refill a bucket of `burst`; a request may wait for its token, but only as long as
 * its wait budget; a request whose token would come later is refused at once and
 * takes nothing from the bucket.
 */

export interface RateLimitOptions {
  /** Sustained requests per second per IP; 0 disables the limiter. */
  ratePerSecond: number;
  /** Requests an idle IP may make at once. */
  burst: number;
  /** Monotonic clock in milliseconds; injectable for tests. */
  now?: () => number;
}

interface Bucket {
  tokens: number;
  updatedAt: number;
}

/** Buckets idle this long are full again, so forgetting them changes nothing. */
const staleAfterMs = 5 * 60_000;
const sweepEveryMs = 60_000;

export class PerIpRateLimiter {
  readonly #ratePerMs: number;
  readonly #burst: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();
  #lastSweep: number;

  constructor(options: RateLimitOptions) {
    if (!(options.ratePerSecond >= 0) || (options.ratePerSecond > 0 && !(options.burst >= 1))) {
      throw new RangeError(`invalid rate limit ${options.ratePerSecond}/s with burst ${options.burst}`);
    }
    this.#ratePerMs = options.ratePerSecond / 1000;
    this.#burst = options.burst;
    this.#now = options.now ?? (() => performance.now());
    this.#lastSweep = this.#now();
  }

  get enabled(): boolean {
    return this.#ratePerMs > 0;
  }

  /**
   * Takes one token for `ip`. Returns how long the caller must wait before going
   * ahead (0 = now), or `null` when that wait would exceed `maxWaitMs`: refuse.
   */
  reserve(ip: string, maxWaitMs: number): number | null {
    if (!this.enabled) return 0;
    const now = this.#now();
    this.#sweep(now);
    const bucket = this.#refilled(ip, now);
    const after = bucket.tokens - 1;
    const waitMs = after >= 0 ? 0 : -after / this.#ratePerMs;
    if (waitMs > maxWaitMs) return null;
    bucket.tokens = after;
    return waitMs;
  }

  #refilled(ip: string, now: number): Bucket {
    const bucket = this.#buckets.get(ip);
    if (bucket === undefined) {
      const fresh = { tokens: this.#burst, updatedAt: now };
      this.#buckets.set(ip, fresh);
      return fresh;
    }
    bucket.tokens = Math.min(this.#burst, bucket.tokens + (now - bucket.updatedAt) * this.#ratePerMs);
    bucket.updatedAt = now;
    return bucket;
  }

  #sweep(now: number): void {
    if (now - this.#lastSweep < sweepEveryMs) return;
    this.#lastSweep = now;
    for (const [ip, bucket] of this.#buckets) {
      if (now - bucket.updatedAt > staleAfterMs) this.#buckets.delete(ip);
    }
  }
}
