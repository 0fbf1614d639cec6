import { LogController, type FastifyReply, type FastifyRequest } from 'fastify';

/**
 * Fastify's two lines per request, "incoming request" and "request
 * completed", at `debug` instead of `info`; everything else Fastify logs
 * (a request that errored, a handler's error, a stream cut short) keeps its
 * level, and so does every line of our own (a refused bearer, a rate limit, a
 * failed call). On the MCP listener they were two JSON lines and two
 * synchronous writes for every tool call, about 35 µs of CPU per request
 * (docs/benchmarks.md, "2026-12-07 (eighth session) Broker per-call CPU,
 * second pass"), repeating what `broker_http_request_duration_seconds` already
 * counts by route and status. `LOG_LEVEL=debug` brings them back
 * (docs/decisions.md, "Per-request access lines of /mcp at debug").
 */
export class DebugRequestLines extends LogController {
  override incomingRequest(request: FastifyRequest, _reply: FastifyReply): void {
    if (this.isLogDisabled(request)) return;
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    if (error) {
      super.requestCompleted(error, request, reply);
      return;
    }
    if (this.isLogDisabled(request)) return;
    reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
