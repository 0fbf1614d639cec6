import type { FastifyReply } from 'fastify';

/** RFC 6585 §4 / RFC 9110 §10.2.3: 429 with `Retry-After` in whole seconds (at least 1). */
export function sendTooManyRequests(reply: FastifyReply, retryAfterSeconds: number, body: unknown): FastifyReply {
  return reply
    .code(429)
    .header('retry-after', String(Math.max(1, Math.ceil(retryAfterSeconds))))
    .send(body);
}
