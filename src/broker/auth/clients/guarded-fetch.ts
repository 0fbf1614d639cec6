/**
 * An outbound GET for documents named by untrusted input (CIMD client ids):
 * no redirects, one deadline for the whole exchange (not per idle gap), a size
 * cap, and (SSRF defence) a DNS lookup that
 * refuses loopback, private, link-local and other special addresses at
 * connect time, so a name that resolves inward is never dialled.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';
import { errorWithCode } from '../../../errors/coded-error.ts';

export type FetchedDocument = { status: number; contentType: string; cacheControl: string; body: string };

export type GuardedFetchOptions = {
  /** The whole fetch, from dial to last byte: a server dripping bytes cannot hold it longer. */
  timeoutMs: number;
  maxBytes: number;
  allowLoopback: boolean;
};

export class GuardedFetchError extends errorWithCode('ERR_GUARDED_FETCH') {}

/**
 * Deny on doubt, by the address's registered range (ipaddr.js keeps the IANA
 * special-purpose registries): IPv4 must be plain global `unicast`; an
 * IPv4-mapped IPv6 address is judged as its IPv4; every other form that
 * embeds an IPv4 address (IPv4-compatible `::a.b.c.d`, SIIT `::ffff:0:a.b.c.d`,
 * NAT64 `64:ff9b::/96` and `64:ff9b:1::/48`, 6to4 `2002::/16`, Teredo) is
 * refused, since a translator could carry it inward; other IPv6 must be
 * global `unicast`. Loopback only when allowed (development).
 */
export function addressAllowed(address: string, allowLoopback: boolean): boolean {
  if (!ipaddr.isValid(address)) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) return addressAllowed(v6.toIPv4Address().toString(), allowLoopback);
    const range = v6.range();
    if (range === 'loopback') return allowLoopback;
    // ::/96 is IPv4-compatible (RFC 4291 §2.5.5.1): ipaddr.js calls it unicast.
    if (v6.parts.slice(0, 6).every((part) => part === 0)) return false;
    return range === 'unicast';
  }
  const range = (parsed as ipaddr.IPv4).range();
  if (range === 'loopback') return allowLoopback;
  return range === 'unicast';
}

function guardedLookup(allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
      if (error) return callback(error, '', 0);
      const list = addresses as unknown as LookupAddress[];
      const refused = list.find((a) => !addressAllowed(a.address, allowLoopback));
      if (refused !== undefined || list.length === 0)
        return callback(new GuardedFetchError(`${hostname} resolves to a refused address`), '', 0);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, list);
      callback(null, list[0]!.address, list[0]!.family);
    });
  };
}

export function guardedGet(url: URL, options: GuardedFetchOptions): Promise<FetchedDocument> {
  if (
    isIP(url.hostname.replace(/^\[|\]$/g, '')) !== 0 &&
    !addressAllowed(url.hostname.replace(/^\[|\]$/g, ''), options.allowLoopback)
  ) {
    return Promise.reject(new GuardedFetchError(`${url.hostname} is a refused address`));
  }
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  return new Promise((resolve, rejectRaw) => {
    const reject = (error: Error) =>
      rejectRaw(
        error.name === 'AbortError' || error.name === 'TimeoutError'
          ? new GuardedFetchError(`not complete within ${options.timeoutMs} ms`, { cause: error })
          : error,
      );
    const request = send(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json' },
        lookup: guardedLookup(options.allowLoopback),
        timeout: options.timeoutMs,
        signal: AbortSignal.timeout(options.timeoutMs),
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > options.maxBytes)
            return void request.destroy(new GuardedFetchError(`document exceeds ${options.maxBytes} bytes`));
          chunks.push(chunk);
        });
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            contentType: String(response.headers['content-type'] ?? ''),
            cacheControl: String(response.headers['cache-control'] ?? ''),
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        response.on('error', reject);
      },
    );
    request.on('timeout', () => request.destroy(new GuardedFetchError(`no answer within ${options.timeoutMs} ms`)));
    request.on('error', reject);
    request.end();
  });
}
