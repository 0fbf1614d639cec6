/**
 * Token buckets in Redis, one hash per key, shared by every broker replica so
 * that N replicas allow the documented budget once, not N times. Each check is
 * one atomic Lua script (refill from the time elapsed, then spend `cost` or
 * nothing), timed by the Redis server's clock so replicas whose clocks differ
 * still agree. A bucket's key expires once it would be full again: an absent
 * bucket and a full one are the same.
 *
 * While Redis cannot answer, checks fall back to this pod's own buckets (the
 * budget is then per pod, as with one replica per pod), `onFallback(true)`
 * tells the metrics, and the first check Redis answers again ends it.
 */
import type { Redis } from 'ioredis';
import { sha256Hex } from '../../../protocol/token.ts';
import { redisScript } from '../../state/index.ts';
import type { RateLimiter, RateLimiterFactory } from './rate-limiter.ts';
import type { RateLimitSettings } from './settings.ts';
import { TokenBuckets, type TakeResult } from '../../../concurrency/token-buckets.ts';

/**
 * KEYS[1] the bucket; ARGV: tokens per millisecond, burst, cost. Returns
 * `{1}` when paid, else `{0, deficit}` with the missing tokens as a string
 * (Lua numbers become integers on the way out).
 */
const takeScript = redisScript(`
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + tonumber(clock[2]) / 1000
local stored = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(stored[1])
local at = tonumber(stored[2])
if tokens == nil or at == nil then
  tokens = burst
else
  tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
end
if tokens < cost then return {0, tostring(cost - tokens)} end
tokens = tokens - cost
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate) + 1000)
return {1}
`);

export type SharedTokenBucketsOptions = RateLimitSettings & {
  client: Redis;
  /** `redis.keyPrefix` plus the budget's name, as `demarkus:rl:subject:`. */
  keyPrefix: string;
  /** Hears `true` when checks move to this pod's buckets, `false` when Redis answers again. */
  onFallback?: (active: boolean) => void;
  now?: () => number;
};

export class SharedTokenBuckets implements RateLimiter {
  readonly #client: Redis;
  readonly #prefix: string;
  readonly #perMs: number;
  readonly #local: TokenBuckets;
  readonly #onFallback: (active: boolean) => void;
  #fallingBack = false;

  constructor(options: SharedTokenBucketsOptions) {
    // The local buckets validate the settings for both.
    this.#local = new TokenBuckets({
      perMinute: options.perMinute,
      burst: options.burst,
      ...(options.now ? { now: options.now } : {}),
    });
    this.#client = options.client;
    this.#prefix = options.keyPrefix;
    this.#perMs = options.perMinute / 60_000;
    this.#onFallback = options.onFallback ?? (() => {});
  }

  get burst(): number {
    return this.#local.burst;
  }

  /** Whether checks are answered by this pod's buckets because Redis did not answer. */
  get fallingBack(): boolean {
    return this.#fallingBack;
  }

  async take(key: string, cost = 1): Promise<TakeResult> {
    if (!(cost >= 1) || !Number.isInteger(cost)) throw new RangeError(`cost must be a positive integer, got ${cost}`);
    // Never payable: no need to ask anyone.
    if (cost > this.burst) return { ok: false, retryAfterSeconds: Number.POSITIVE_INFINITY };
    // A client known to be disconnected fails fast anyway; skip the attempt.
    if (this.#fallingBack && this.#client.status !== 'ready') return this.#local.take(key, cost);
    let reply: unknown;
    try {
      // Hashed: subjects and addresses stay out of Redis key names, and keys stay short.
      reply = await takeScript.run(this.#client, [this.#prefix + sha256Hex(key)], [this.#perMs, this.burst, cost]);
    } catch {
      this.#setFallingBack(true);
      return this.#local.take(key, cost);
    }
    this.#setFallingBack(false);
    if (!Array.isArray(reply) || reply[0] === 1) return { ok: true };
    // A malformed deficit still refuses, with the longest wait the burst can need.
    const deficit = Number(reply[1]);
    const waitMs = (Number.isFinite(deficit) && deficit > 0 ? deficit : this.burst) / this.#perMs;
    return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil(waitMs / 1000)) };
  }

  #setFallingBack(active: boolean): void {
    if (this.#fallingBack === active) return;
    this.#fallingBack = active;
    this.#onFallback(active);
  }
}

/**
 * Shared buckets for every budget, each under `<keyPrefix>rl:<name>:`, on one
 * Redis connection; `onFallback` hears which budget moved to per-pod buckets.
 */
export function sharedLimiters(options: {
  client: Redis;
  keyPrefix: string;
  onFallback?: (limiter: string, active: boolean) => void;
  now?: () => number;
}): RateLimiterFactory {
  return (name, settings) =>
    new SharedTokenBuckets({
      ...settings,
      client: options.client,
      keyPrefix: `${options.keyPrefix}rl:${name}:`,
      ...(options.onFallback ? { onFallback: (active: boolean) => options.onFallback?.(name, active) } : {}),
      ...(options.now ? { now: options.now } : {}),
    });
}
