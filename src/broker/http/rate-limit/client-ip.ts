import proxyAddress from '@fastify/proxy-addr';
import type { FastifyRequest } from 'fastify';
import { addressKey } from '../../../transport/index.ts';

/**
 * `rateLimit.trustForwardedFor`: false (no proxy is trusted: the socket's peer
 * is the client), true (one proxy), or how many proxies stand in front of the
 * broker, each appending the address it saw to `X-Forwarded-For`.
 */
export type ForwardedTrust = boolean | number;

/** How many proxies in front of the broker are trusted; at most this many `X-Forwarded-For` entries are believed. */
export function trustedProxyHops(trust: ForwardedTrust): number {
  return trust === true ? 1 : trust === false ? 0 : trust;
}

/**
 * The key of a per-address budget: the address the outermost trusted proxy
 * saw, counted from the right of `X-Forwarded-For` (each proxy appends, so
 * the entries to its left are the client's own words: the Go broker's
 * leftmost entry, `ratelimit.go`, let a client choose its key), then the
 * network a client holds as a whole (an IPv6 /64, `addressKey` in
 * src/transport/address-key.ts).
 */
export function clientIp(request: Pick<FastifyRequest, 'raw'>, trust: ForwardedTrust): string {
  const hops = trustedProxyHops(trust);
  const address =
    hops === 0 ? request.raw.socket.remoteAddress : proxyAddress(request.raw, (_address, index) => index < hops);
  return address === undefined ? 'unknown' : addressKey(address);
}
