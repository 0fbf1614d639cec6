import type { FastifyReply, FastifyRequest, onRequestHookHandler, preHandlerHookHandler } from 'fastify';
import { sha256Hex } from '../../../protocol/token.ts';
import { jsonRpcError, JsonRpcCode } from '../json-rpc-error.ts';
import type { BrokerMetrics } from '../metrics.ts';
import { sendTooManyRequests } from './reject.ts';
import type { RateLimiter } from './rate-limiter.ts';
import type { TakeResult } from '../../../concurrency/token-buckets.ts';

export type SubjectRateLimitOptions = {
  buckets: RateLimiter;
  metrics?: Pick<BrokerMetrics, 'recordRateLimitRejection'>;
};

export type SubjectRateLimitHooks = { onRequest: onRequestHookHandler; preHandler: preHandlerHookHandler };

/**
 * The subject's budget is spent per JSON-RPC message, not per HTTP request,
 * so a batch cannot multiply it: every authenticated `/mcp` request pays one
 * unit in `onRequest`, before its body is read (initialize, notifications,
 * SSE GETs and unparseable bodies included); a POSTed batch of n messages
 * pays the other n - 1 in `preHandler`, all or nothing. A batch bigger than
 * what is left is refused whole: none of its calls run. Subjects are logged hashed.
 */
export function subjectRateLimitHooks(options: SubjectRateLimitOptions): SubjectRateLimitHooks {
  const charge = async (request: FastifyRequest, reply: FastifyReply, cost: number) => {
    const subject = request.identity?.subject;
    if (subject === undefined) return;
    const verdict = await options.buckets.take(subject, cost);
    if (verdict.ok) return;
    return refuse(options, request, reply, subject, verdict, cost);
  };
  return {
    onRequest: async (request, reply) => charge(request, reply, 1),
    preHandler: async (request, reply) => {
      const extra = jsonRpcMessageCount(request.body) - 1;
      if (extra > 0) return charge(request, reply, extra);
    },
  };
}

/** Messages in a JSON-RPC body: the length of a batch, else one. */
export function jsonRpcMessageCount(body: unknown): number {
  return Array.isArray(body) ? Math.max(1, body.length) : 1;
}

function refuse(
  options: SubjectRateLimitOptions,
  request: FastifyRequest,
  reply: FastifyReply,
  subject: string,
  verdict: Extract<TakeResult, { ok: false }>,
  cost: number,
): FastifyReply {
  options.metrics?.recordRateLimitRejection('subject', request.routeOptions.url ?? 'unmatched');
  request.log.warn(
    { route: request.routeOptions.url, subject: sha256Hex(subject).slice(0, 16), cost },
    'rate limit exceeded',
  );
  if (!Number.isFinite(verdict.retryAfterSeconds)) {
    const message = `batch of ${cost + 1} JSON-RPC messages exceeds the per-subject burst of ${options.buckets.burst}; send fewer at a time`;
    return reply.code(413).send(jsonRpcError(JsonRpcCode.ServerError, message));
  }
  return sendTooManyRequests(
    reply,
    verdict.retryAfterSeconds,
    jsonRpcError(JsonRpcCode.ServerError, 'rate limit exceeded'),
  );
}
