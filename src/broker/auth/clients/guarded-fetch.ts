/**
 * An outbound GET for documents named by untrusted input (CIMD client ids):
 * no redirects, a timeout, a size cap, and (SSRF defence) a DNS lookup that
 * refuses loopback, private, link-local and other special addresses at
 * connect time, so a name that resolves inward is never dialled.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { errorWithCode } from '../../../errors/coded-error.ts';

export type FetchedDocument = { status: number; contentType: string; cacheControl: string; body: string };

export type GuardedFetchOptions = { timeoutMs: number; maxBytes: number; allowLoopback: boolean };

export class GuardedFetchError extends errorWithCode('ERR_GUARDED_FETCH') {}

const blocked = new BlockList();
for (const [net, prefix] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  blocked.addSubnet(net, prefix, 'ipv4');
for (const [net, prefix] of [
  ['::', 128],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
  ['64:ff9b::', 96],
] as const)
  blocked.addSubnet(net, prefix, 'ipv6');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

export function addressAllowed(address: string, allowLoopback: boolean): boolean {
  const family = isIP(address) === 6 ? 'ipv6' : 'ipv4';
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped !== null) return addressAllowed(mapped[1]!, allowLoopback);
  if (loopback.check(address, family)) return allowLoopback;
  return !blocked.check(address, family);
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
  return new Promise((resolve, reject) => {
    const request = send(
      url,
      {
        method: 'GET',
        headers: { accept: 'application/json' },
        lookup: guardedLookup(options.allowLoopback),
        timeout: options.timeoutMs,
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
