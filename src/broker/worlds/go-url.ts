/**
 * The part of Go's `net/url.Parse` that decides how a tool URL reads (scheme,
 * authority, userinfo, port, query, fragment, path unescaping), so the broker
 * accepts and refuses exactly what the Go broker does and its parse errors
 * carry the same text (`parse "<url>": invalid character " " in host name`).
 */
import { goQuote } from '../../protocol/go-quote.ts';
import { errorWithCode } from '../../errors/coded-error.ts';

export type GoUrl = {
  scheme: string;
  opaque: string;
  /** Whether an `@` introduced userinfo (even an empty one). */
  hasUser: boolean;
  /** Host with port, as `url.URL.Host`. */
  host: string;
  rawQuery: string;
  path: string;
  fragment: string;
};

export class GoUrlError extends errorWithCode('ERR_GO_URL_PARSE') {}

type Mode = 'path' | 'host' | 'user' | 'fragment';

export function goParseUrl(rawUrl: string): GoUrl {
  const hashAt = rawUrl.indexOf('#');
  const beforeHash = hashAt < 0 ? rawUrl : rawUrl.slice(0, hashAt);
  let url: GoUrl;
  try {
    url = parseWithoutFragment(beforeHash);
  } catch (error) {
    throw wrap(beforeHash, error);
  }
  try {
    url.fragment = hashAt < 0 ? '' : percentDecode(rawUrl.slice(hashAt + 1), 'fragment');
  } catch (error) {
    throw wrap(rawUrl, error);
  }
  return url;
}

function wrap(url: string, error: unknown): GoUrlError {
  return new GoUrlError(`parse ${goQuote(url)}: ${(error as Error).message}`);
}

function parseWithoutFragment(raw: string): GoUrl {
  const url: GoUrl = { scheme: '', opaque: '', hasUser: false, host: '', rawQuery: '', path: '', fragment: '' };
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw new Error('net/url: invalid control character in URL');
  if (raw === '') return url;
  let rest: string;
  [url.scheme, rest] = splitScheme(raw);
  url.scheme = url.scheme.toLowerCase();
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) {
    rest = rest.slice(0, -1);
  } else {
    const queryAt = rest.indexOf('?');
    if (queryAt >= 0) [rest, url.rawQuery] = [rest.slice(0, queryAt), rest.slice(queryAt + 1)];
  }
  if (!rest.startsWith('/')) {
    if (url.scheme !== '') {
      url.opaque = rest;
      return url;
    }
    if ((rest.split('/')[0] ?? '').includes(':')) throw new Error('first path segment in URL cannot contain colon');
  }
  if ((url.scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const slashAt = rest.indexOf('/', 2);
    const authority = slashAt < 0 ? rest.slice(2) : rest.slice(2, slashAt);
    rest = slashAt < 0 ? '' : rest.slice(slashAt);
    const at = authority.lastIndexOf('@');
    url.host = parseHost(at < 0 ? authority : authority.slice(at + 1));
    if (at >= 0) {
      checkUserinfo(authority.slice(0, at));
      url.hasUser = true;
    }
  }
  url.path = percentDecode(rest, 'path');
  return url;
}

function splitScheme(raw: string): [string, string] {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (/[A-Za-z]/.test(c)) continue;
    if (/[0-9+\-.]/.test(c)) {
      if (i === 0) return ['', raw];
      continue;
    }
    if (c === ':') {
      if (i === 0) throw new Error('missing protocol scheme');
      return [raw.slice(0, i), raw.slice(i + 1)];
    }
    return ['', raw];
  }
  return ['', raw];
}

function parseHost(host: string): string {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']');
    if (close < 0) throw new Error("missing ']' in host");
    checkOptionalPort(host.slice(close + 1));
  } else {
    const colon = host.lastIndexOf(':');
    if (colon >= 0) checkOptionalPort(host.slice(colon));
  }
  return percentDecode(host, 'host');
}

function checkOptionalPort(colonPort: string): void {
  if (!isValidOptionalPort(colonPort)) throw new Error(`invalid port ${goQuote(colonPort)} after host`);
}

export function isValidOptionalPort(colonPort: string): boolean {
  return colonPort === '' || /^:\d*$/.test(colonPort);
}

function checkUserinfo(userinfo: string): void {
  if (!/^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$/.test(userinfo)) throw new Error('net/url: invalid userinfo');
  const colon = userinfo.indexOf(':');
  percentDecode(colon < 0 ? userinfo : userinfo.slice(0, colon), 'user');
  if (colon >= 0) percentDecode(userinfo.slice(colon + 1), 'user');
}

// RFC 3986 §3.2.2 as Go applies it: characters a host may hold unescaped.
const hostAllowed = /[A-Za-z0-9!$&'()*+,;=:[\]<>"\-_.~]/;
/** A whole host of allowed ASCII characters and non-ASCII ones, as the loop in percentDecode checks them one by one. */
const hostChars = /^(?:[A-Za-z0-9!$&'()*+,;=:[\]<>"\-_.~]|[^\x00-\x7f])*$/;

/** Percent-decoding with Go's checks (its url.unescape): well-formed escapes, and in hosts only non-ASCII escapes (or %25). */
function percentDecode(text: string, mode: Mode): string {
  // Nothing to decode and nothing to refuse: the text is its own decoding (a lone surrogate still takes the long way, to become U+FFFD).
  if (!text.includes('%') && text.isWellFormed() && (mode !== 'host' || hostChars.test(text))) return text;
  const bytes: number[] = [];
  for (let i = 0; i < text.length; ) {
    const c = text[i]!;
    if (c === '%') {
      const percentEscape = text.slice(i, i + 3);
      if (!/^%[0-9A-Fa-f]{2}$/.test(percentEscape)) throw new Error(`invalid URL escape ${goQuote(percentEscape)}`);
      if (mode === 'host' && parseInt(percentEscape[1]!, 16) < 8 && percentEscape !== '%25')
        throw new Error(`invalid URL escape ${goQuote(percentEscape)}`);
      bytes.push(parseInt(percentEscape.slice(1), 16));
      i += 3;
      continue;
    }
    if (mode === 'host' && c.charCodeAt(0) < 0x80 && !hostAllowed.test(c))
      throw new Error(`invalid character ${goQuote(c)} in host name`);
    const char = String.fromCodePoint(text.codePointAt(i) ?? 0);
    bytes.push(...Buffer.from(char));
    i += char.length;
  }
  return Buffer.from(bytes).toString('utf8');
}

/** `url.URL.Hostname()`: the host without port and IPv6 brackets. */
export function goHostname(host: string): string {
  return splitHostPort(host)[0];
}

/** `url.URL.Port()`: the digits after the host's last `:`, or "". */
export function goPort(host: string): string {
  return splitHostPort(host)[1];
}

function splitHostPort(hostPort: string): [string, string] {
  let host = hostPort;
  let port = '';
  const colon = hostPort.lastIndexOf(':');
  if (colon >= 0 && isValidOptionalPort(hostPort.slice(colon)))
    [host, port] = [hostPort.slice(0, colon), hostPort.slice(colon + 1)];
  if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1);
  return [host, port];
}
