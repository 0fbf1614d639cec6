import type { FastifyReply } from 'fastify';

/** RFC 9110 §10.2.3: a `Retry-After` delay in whole seconds, at least one. */
export function retryAfterWholeSeconds(seconds: number): number {
  return Math.max(1, Math.ceil(seconds));
}

/** RFC 6585 §4: 429 with `Retry-After` in whole seconds (at least 1). */
export function sendTooManyRequests(reply: FastifyReply, retryAfterSeconds: number, body: unknown): FastifyReply {
  return reply
    .code(429)
    .header('retry-after', String(retryAfterWholeSeconds(retryAfterSeconds)))
    .send(body);
}
