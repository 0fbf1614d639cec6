import type { FastifyReply, FastifyRequest, onResponseHookHandler } from 'fastify';
import type { BrokerMetrics } from './metrics.ts';

/** Observes every response, hijacked MCP replies included (fastify still runs onResponse for them). */
export function httpMetricsHook(
  metrics: Pick<BrokerMetrics, 'recordHttpRequest'>,
  listener: string,
): onResponseHookHandler {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    metrics.recordHttpRequest(
      listener,
      request.method,
      request.routeOptions.url ?? 'unmatched',
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  };
}
