/**
 * Addresses in the config: listen addresses in Go's `host:port` form (`:8080`
 * listens on every interface) and world dial addresses (`host:port`, a port
 * always present).
 */
import { isIP } from 'node:net';
import { errorWithCode } from '../../errors/coded-error.ts';

export type HostPort = {
  /** Host without IPv6 brackets; null in a listen address means every interface. */
  host: string | null;
  port: number;
};

export class AddressError extends errorWithCode('ERR_INVALID_ADDRESS') {}

const dnsName = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*\.?$/i;

/** True for a DNS name or an IP address (IPv6 without brackets). */
export function isValidHost(host: string): boolean {
  return isIP(host) !== 0 || isDnsName(host);
}

export function isDnsName(host: string): boolean {
  return dnsName.test(host);
}

/** `host:port`, `[v6]:port` or (when `allowEmptyHost`) `:port`. Port 0 only when `allowPortZero`. */
export function parseHostPort(
  text: string,
  options: { allowEmptyHost?: boolean; allowPortZero?: boolean } = {},
): HostPort {
  const colon = text.lastIndexOf(':');
  if (colon < 0) throw new AddressError('must be "host:port"');
  let host = text.slice(0, colon);
  const portText = text.slice(colon + 1);
  if (host.startsWith('[') && host.endsWith(']')) {
    host = host.slice(1, -1);
    if (isIP(host) !== 6) throw new AddressError('has an invalid IPv6 address in brackets');
  } else if (host.includes(':')) {
    throw new AddressError('must put an IPv6 host in brackets, as "[::1]:port"');
  }
  const port = parsePort(portText, options.allowPortZero === true);
  if (host === '') {
    if (options.allowEmptyHost === true) return { host: null, port };
    throw new AddressError('must name a host before the port');
  }
  if (!isValidHost(host)) throw new AddressError('has an invalid host');
  return { host: host.toLowerCase(), port };
}

function parsePort(text: string, allowZero: boolean): number {
  if (!/^\d{1,5}$/.test(text)) throw new AddressError('must end with a port number');
  const port = Number(text);
  if (port > 65_535 || (port === 0 && !allowZero)) throw new AddressError(`has port ${port} outside 1-65535`);
  return port;
}

/** Go-style listen address (`:8080`, `127.0.0.1:8080`, `[::1]:8080`); port 0 picks a free port. */
export function parseListenAddress(text: string): HostPort {
  return parseHostPort(text, { allowEmptyHost: true, allowPortZero: true });
}

/** Whether two listen addresses would fight over one socket (port 0 never does). */
export function listenersCollide(a: HostPort, b: HostPort): boolean {
  if (a.port === 0 || a.port !== b.port) return false;
  return a.host === null || b.host === null || a.host === b.host;
}
