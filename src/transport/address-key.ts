import ipaddr from 'ipaddr.js';

/**
 * The key of a per-address budget: IPv4 (mapped or not) as written; IPv6 as its /64, the network a
 * host holds as a whole (RFC 4291 §2.5.4: it rotates addresses inside it at will); anything
 * unparsable as given (its own key). Shared by the broker's HTTP rate limits and a world's WATCH
 * slots, so one caller is one caller to both.
 */
export function addressKey(address: string): string {
  if (!ipaddr.isValid(address)) return address;
  const parsed = ipaddr.process(address);
  if (parsed.kind() === 'ipv4') return parsed.toString();
  const parts = (parsed as ipaddr.IPv6).parts.slice(0, 4);
  return `${parts.map((part) => part.toString(16)).join(':')}::/64`;
}
