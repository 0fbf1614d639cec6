import proxyAddress from '@fastify/proxy-addr';
import ipaddr from 'ipaddr.js';
import type { FastifyRequest } from 'fastify';

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
 * network a client holds as a whole (an IPv6 /64, RFC 4291 §2.5.4: a host
 * rotates addresses inside it at will).
 */
export function clientIp(request: Pick<FastifyRequest, 'raw'>, trust: ForwardedTrust): string {
  const hops = trustedProxyHops(trust);
  const address =
    hops === 0 ? request.raw.socket.remoteAddress : proxyAddress(request.raw, (_address, index) => index < hops);
  return address === undefined ? 'unknown' : addressKey(address);
}

/** IPv4 (mapped or not) as written; IPv6 as its /64; anything unparsable as given (its own key). */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
