import { defaultPort } from './limits.ts';
import { errorWithCode } from '../errors/coded-error.ts';

/**
 * `mark://host[:port]/path` (Mark SPEC §2.1). Hosts are case-insensitive and
 * lower-cased; paths keep their case and are percent-decoded as Go's url.Parse
 * does. Userinfo is forbidden. A `#fragment` names a section on the client side
 * and is never sent on the wire.
 */
export type MarkUrl = {
  host: string;
  port: number;
  /** True when the text carried an explicit port. */
  explicitPort: boolean;
  path: string;
  query: string | null;
  fragment: string | null;
};

export class MarkUrlError extends errorWithCode('ERR_INVALID_MARK_URL') {}

const shape = /^mark:\/\/([^/?#]*)([^?#]*)(?:\?([^#]*))?(?:#(.*))?$/is;

export function parseMarkUrl(text: string): MarkUrl {
  const match = shape.exec(text);
  if (match === null) throw new MarkUrlError(`not a mark:// URL: ${text}`);
  const [, authority = '', rawPath = '', query, fragment] = match;
  if (authority.includes('@')) throw new MarkUrlError('mark:// URLs must not contain userinfo');
  const { host, port, explicitPort } = parseAuthority(authority);
  return {
    host,
    port,
    explicitPort,
    path: decodePath(rawPath === '' ? '/' : rawPath),
    query: query ?? null,
    fragment: fragment === undefined ? null : decodeComponent(fragment),
  };
}

function parseAuthority(authority: string): { host: string; port: number; explicitPort: boolean } {
  let host: string;
  let portText: string | undefined;
  if (authority.startsWith('[')) {
    const close = authority.indexOf(']');
    if (close < 0) throw new MarkUrlError('unterminated IPv6 address');
    host = authority.slice(0, close + 1);
    const rest = authority.slice(close + 1);
    if (rest !== '' && !rest.startsWith(':')) throw new MarkUrlError('invalid authority');
    portText = rest === '' ? undefined : rest.slice(1);
  } else {
    const colon = authority.lastIndexOf(':');
    host = colon < 0 ? authority : authority.slice(0, colon);
    portText = colon < 0 ? undefined : authority.slice(colon + 1);
  }
  if (host === '' || /[\s]/.test(host)) throw new MarkUrlError('mark:// URL has no valid host');
  if (portText === undefined) return { host: host.toLowerCase(), port: defaultPort, explicitPort: false };
  if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
    throw new MarkUrlError(`invalid port: ${portText}`);
  }
  return { host: host.toLowerCase(), port: Number(portText), explicitPort: true };
}

function decodePath(raw: string): string {
  const path = decodeComponent(raw);
  return path.startsWith('/') ? path : `/${path}`;
}

function decodeComponent(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new MarkUrlError('invalid percent-encoding in mark:// URL');
  }
}

/** Dial form: lower-case `host:port` with the default port filled in. */
export function dialAuthority(url: Pick<MarkUrl, 'host' | 'port'>): string {
  return `${url.host}:${url.port}`;
}

/** The host without IPv6 brackets, as a socket or SNI wants it. */
export function bareHost(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/**
 * Identity form (ADR 0005/0018): lower-case host, default port omitted, path kept.
 * Node URLs and index rows use this form so one document has one name.
 */
export function identityUrl(url: Pick<MarkUrl, 'host' | 'port' | 'path'>): string {
  const port = url.port === defaultPort ? '' : `:${url.port}`;
  return `mark://${url.host}${port}${url.path}`;
}
