import type { FastifyRequest } from 'fastify';

/**
 * The address a per-IP limit is keyed by (Go broker `ratelimit.go`): the leftmost
 * non-empty `X-Forwarded-For` entry when the broker sits behind a proxy it
 * trusts, else the socket's peer. Only trust the header behind such a proxy:
 * clients can write anything there.
 */
export function clientIp(request: Pick<FastifyRequest, 'headers' | 'socket'>, trustForwardedFor: boolean): string {
  if (trustForwardedFor) {
    const header = request.headers['x-forwarded-for'];
    const joined = Array.isArray(header) ? header.join(',') : header;
    const leftmost = joined
      ?.split(',')
      .map((part) => part.trim())
      .find((part) => part !== '');
    if (leftmost !== undefined) return leftmost;
  }
  return request.socket.remoteAddress ?? 'unknown';
}
