import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { BrokerMetrics } from '../metrics.ts';
import { clientIp, type ForwardedTrust } from './client-ip.ts';
import { sendTooManyRequests } from './reject.ts';
import type { RateLimiter } from './rate-limiter.ts';

export type IpRateLimitOptions = {
  buckets: RateLimiter;
  trustForwardedFor: ForwardedTrust;
  metrics?: Pick<BrokerMetrics, 'recordRateLimitRejection'>;
};

/**
 * An `onRequest` hook charging the caller's IP, for routes that run before
 * anyone is authenticated (protected-resource metadata now, sign-in routes
 * later). All routes that use one `buckets` share its budget, as in Go.
 */
export function ipRateLimitHook(options: IpRateLimitOptions): onRequestHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const verdict = await options.buckets.take(clientIp(request, options.trustForwardedFor));
    if (verdict.ok) return;
    options.metrics?.recordRateLimitRejection('ip', request.routeOptions.url ?? 'unmatched');
    request.log.warn({ route: request.routeOptions.url }, 'rate limit exceeded');
    return sendTooManyRequests(reply, verdict.retryAfterSeconds, {
      error: 'rate_limited',
      error_description: 'rate limit exceeded',
    });
  };
}
