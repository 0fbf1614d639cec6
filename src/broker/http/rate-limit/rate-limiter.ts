/**
 * The port every rate limit of the broker goes through. Two implementations:
 * `TokenBuckets` (this process's memory: one replica, `npm start`) and
 * `SharedTokenBuckets` (one bucket per key in Redis, shared by every replica,
 * with per-pod buckets while Redis cannot answer). Both keep the same
 * semantics: `take` spends `cost` tokens all at once or none, so a refused
 * request spends nothing.
 */
import type { RateLimitSettings } from './settings.ts';
import type { TakeResult } from '../../../concurrency/token-buckets.ts';

export interface RateLimiter {
  readonly burst: number;
  take(key: string, cost?: number): TakeResult | Promise<TakeResult>;
}

/**
 * Makes the limiter of one named budget (`subject`, `login`, `user-code`,
 * `mcp-ip`): the name keeps budgets that share settings apart in a shared store.
 */
export type RateLimiterFactory = (name: string, settings: RateLimitSettings) => RateLimiter;
