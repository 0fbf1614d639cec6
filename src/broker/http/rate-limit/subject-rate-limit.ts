import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { sha256Hex } from '../../../protocol/token.ts';
import { jsonRpcError, JsonRpcCode } from '../json-rpc-error.ts';
import type { BrokerMetrics } from '../metrics.ts';
import { sendTooManyRequests } from './reject.ts';
import type { TokenBuckets } from './token-bucket.ts';

export type SubjectRateLimitOptions = {
  buckets: TokenBuckets;
  metrics?: Pick<BrokerMetrics, 'recordRateLimitRejection'>;
};

/**
 * Charges every authenticated `/mcp` request to its subject (inventory §6.1:
 * initialize, notifications and SSE GETs included). Runs after the bearer
 * hook; a refused request spends nothing. Subjects are logged hashed.
 */
export function subjectRateLimitHook(options: SubjectRateLimitOptions): onRequestHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const subject = request.identity?.subject;
    if (subject === undefined) return;
    const verdict = options.buckets.take(subject);
    if (verdict.ok) return;
    options.metrics?.recordRateLimitRejection('subject', request.routeOptions.url ?? 'unmatched');
    request.log.warn(
      { route: request.routeOptions.url, subject: sha256Hex(subject).slice(0, 16) },
      'rate limit exceeded',
    );
    return sendTooManyRequests(
      reply,
      verdict.retryAfterSeconds,
      jsonRpcError(JsonRpcCode.ServerError, 'rate limit exceeded'),
    );
  };
}
