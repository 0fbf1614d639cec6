import type { ForwardedTrust } from './client-ip.ts';
import type { RateLimiter, RateLimiterFactory } from './rate-limiter.ts';
import { TokenBuckets } from '../../../concurrency/token-buckets.ts';

export type RateLimitSettings = { perMinute: number; burst: number };

/**
 * Per-subject default: the Go deployment's values (Go broker `ratelimit.go`; chart values), not its
 * binary's 10/min burst 5, because an MCP client spends about four requests
 * on connecting alone.
 */
export const defaultSubjectRateLimit: RateLimitSettings = { perMinute: 120, burst: 60 };
/** Per-IP default for unauthenticated routes: the Go broker's `rateLimit.login`. */
export const defaultIpRateLimit: RateLimitSettings = { perMinute: 20, burst: 5 };

export type RateLimitOptions = {
  /** `rateLimit.disabled`: no limits at all. */
  disabled?: boolean;
  subject?: RateLimitSettings;
  ip?: RateLimitSettings;
  trustForwardedFor?: ForwardedTrust;
  now?: () => number;
  /** Where the buckets live; default this process's memory (`memoryLimiters`). */
  limiters?: RateLimiterFactory;
};

/** Per-process buckets, each budget its own `TokenBuckets`. */
export function memoryLimiters(now?: () => number): RateLimiterFactory {
  return (_name, settings) => new TokenBuckets({ ...settings, ...(now ? { now } : {}) });
}

/** The limiter of budget `name` from the options' factory, or per-process buckets. */
export function limiterFor(
  name: string,
  settings: RateLimitSettings,
  options: Pick<RateLimitOptions, 'limiters' | 'now'>,
): RateLimiter {
  return (options.limiters ?? memoryLimiters(options.now))(name, settings);
}
