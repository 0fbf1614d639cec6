/**
 * Token buckets per key, the shape of golang.org/x/time/rate as the Go broker
 * uses it (Go broker `ratelimit.go`): `perMinute / 60` tokens per second refill a bucket
 * of `burst`. A refused request takes nothing (Go's `Reservation.Cancel()`),
 * so a client that backs off as told is served when it comes back. The one
 * token bucket of the code base: the broker's HTTP rate limits
 * (src/broker/http/rate-limit) and the link graph's per-world budget of read
 * checks (src/broker/graph/read-check.ts) both spend from it, so it lives in
 * this bottom layer.
 */
export type TokenBucketOptions = {
  perMinute: number;
  burst: number;
  /** Keys remembered at most; a full bucket is forgotten first (it is the same as a new one). */
  maxKeys?: number;
  /** Monotonic milliseconds; injectable for tests. */
  now?: () => number;
};

export type TakeResult = { ok: true } | { ok: false; retryAfterSeconds: number };

type Bucket = { tokens: number; updatedAt: number };

const defaultMaxKeys = 100_000;

export class TokenBuckets {
  readonly #perMs: number;
  readonly #burst: number;
  readonly #maxKeys: number;
  readonly #now: () => number;
  readonly #buckets = new Map<string, Bucket>();

  constructor(options: TokenBucketOptions) {
    if (!(options.perMinute > 0) || !Number.isFinite(options.perMinute))
      throw new RangeError(`perMinute must be positive, got ${options.perMinute}`);
    if (!(options.burst >= 1) || !Number.isInteger(options.burst))
      throw new RangeError(`burst must be a positive integer, got ${options.burst}`);
    this.#perMs = options.perMinute / 60_000;
    this.#burst = options.burst;
    this.#maxKeys = options.maxKeys ?? defaultMaxKeys;
    this.#now = options.now ?? (() => performance.now());
  }

  get size(): number {
    return this.#buckets.size;
  }

  get burst(): number {
    return this.#burst;
  }

  /**
   * Spends `cost` tokens of `key` all at once, or none and says how long until
   * they are there (ceil seconds, at least 1). A cost above the burst can
   * never be paid: `retryAfterSeconds` is then Infinity.
   */
  take(key: string, cost = 1): TakeResult {
    if (!(cost >= 1) || !Number.isInteger(cost)) throw new RangeError(`cost must be a positive integer, got ${cost}`);
    const now = this.#now();
    const bucket = this.#refilled(key, now);
    if (bucket.tokens >= cost) {
      bucket.tokens -= cost;
      return { ok: true };
    }
    if (cost > this.#burst) return { ok: false, retryAfterSeconds: Number.POSITIVE_INFINITY };
    const waitMs = (cost - bucket.tokens) / this.#perMs;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  #refilled(key: string, now: number): Bucket {
    const existing = this.#buckets.get(key);
    if (existing !== undefined) {
      existing.tokens = Math.min(this.#burst, existing.tokens + (now - existing.updatedAt) * this.#perMs);
      existing.updatedAt = now;
      // Re-insert: Map order is then least-recently-used first.
      this.#buckets.delete(key);
      this.#buckets.set(key, existing);
      return existing;
    }
    if (this.#buckets.size >= this.#maxKeys) this.#evict(now);
    const fresh = { tokens: this.#burst, updatedAt: now };
    this.#buckets.set(key, fresh);
    return fresh;
  }

  /**
   * Map order is least recently used first, which is also `updatedAt` order,
   * so the buckets that have refilled form a prefix: drop that prefix, or the
   * oldest bucket when none has refilled (amortised O(1) per new key).
   */
  #evict(now: number): void {
    const fullAfterMs = this.#burst / this.#perMs;
    let dropped = 0;
    for (const [key, bucket] of this.#buckets) {
      if (now - bucket.updatedAt < fullAfterMs && dropped > 0) break;
      this.#buckets.delete(key);
      dropped += 1;
      if (now - bucket.updatedAt < fullAfterMs) break;
    }
  }
}
