import { goQuote } from './go-format.ts';

/**
 * Tool URLs: `mark://{world}/{path}` and nothing else (reference broker
 * `parseToolURL`, go-broker-inventory §4.2). The world name is the whole
 * address; the broker resolves it, so a port, userinfo, query or fragment is
 * refused rather than silently dropped. Error texts are the reference's, so
 * agents that match on them keep working.
 *
 * TODO(lead): fold into the worlds module's `parseWorldUrl` once it lands.
 */
export type ToolUrl = { world: string; path: string };

export class ToolUrlError extends Error {
  readonly code = 'ERR_INVALID_TOOL_URL';
  override readonly name = 'ToolUrlError';
}

const schemePattern = /^([A-Za-z][A-Za-z0-9+.-]*):/;

export function parseToolUrl(raw: string): ToolUrl {
  // net/url refuses control characters before anything else.
  if (/[\u0000-\u001f\u007f]/.test(raw)) throw parseError(raw, 'net/url: invalid control character in URL');
  if (raw.startsWith(':')) throw parseError(raw, 'missing protocol scheme');
  const { head: beforeFragment, tail: fragment } = cut(raw, '#');
  const { head: beforeQuery, tail: query } = cut(beforeFragment, '?');
  const scheme = schemePattern.exec(beforeQuery)?.[1]?.toLowerCase() ?? '';
  if (scheme !== 'mark') throw new ToolUrlError(`unsupported scheme ${goQuote(scheme)} (expected mark://)`);
  const rest = beforeQuery.slice('mark:'.length);
  const authority = rest.startsWith('//') ? rest.slice(2).split('/', 1)[0]! : '';
  const rawPath = rest.startsWith('//') ? rest.slice(2 + authority.length) : '';
  const { userinfo, host, port } = splitAuthority(raw, authority);
  if (host === '') throw new ToolUrlError(`missing world name in URL ${goQuote(raw)} (expected mark://{worldName}/{path})`);
  if (port !== '') throw new ToolUrlError(`invalid URL ${goQuote(raw)}: world host must not carry a port (the broker resolves world names internally)`);
  if (userinfo) throw new ToolUrlError(`invalid URL ${goQuote(raw)}: world host must not carry userinfo`);
  if (query !== null && query !== '') throw new ToolUrlError(`invalid URL ${goQuote(raw)}: query parameters are not supported`);
  if (fragment !== null && fragment !== '') throw new ToolUrlError(`invalid URL ${goQuote(raw)}: fragments are not supported`);
  const path = unescapePath(raw, rawPath);
  // Host names are case-insensitive (Mark SPEC §2.1): world names compare lower-case.
  return { world: host.toLowerCase(), path: path === '' ? '/' : path };
}

/**
 * `strings.Cut(raw, "#")`: the URL before the first `#` and the anchor after
 * it. mark_fetch, mark_explore and resource reads give the fragment a meaning
 * (a section), so they cut it off before parsing.
 */
export function cutAnchor(raw: string): { url: string; anchor: string } {
  const { head, tail } = cut(raw, '#');
  return { url: head, anchor: tail ?? '' };
}

function cut(text: string, separator: string): { head: string; tail: string | null } {
  const at = text.indexOf(separator);
  return at < 0 ? { head: text, tail: null } : { head: text.slice(0, at), tail: text.slice(at + 1) };
}

function splitAuthority(raw: string, authority: string): { userinfo: boolean; host: string; port: string } {
  const at = authority.lastIndexOf('@');
  const hostPort = at < 0 ? authority : authority.slice(at + 1);
  if (hostPort.startsWith('[')) {
    const close = hostPort.indexOf(']');
    if (close < 0) throw parseError(raw, `missing ']' in host`);
    return { userinfo: at >= 0, host: hostPort.slice(1, close), port: portAfter(raw, hostPort.slice(close + 1)) };
  }
  const colon = hostPort.lastIndexOf(':');
  if (colon < 0) return { userinfo: at >= 0, host: hostPort, port: '' };
  return { userinfo: at >= 0, host: hostPort.slice(0, colon), port: portAfter(raw, hostPort.slice(colon)) };
}

/** net/url accepts `:digits` (or a bare `:`) after the host and refuses anything else. */
function portAfter(raw: string, colonPort: string): string {
  if (colonPort === '' || colonPort === ':') return '';
  if (!/^:\d+$/.test(colonPort)) throw parseError(raw, `invalid port ${goQuote(colonPort)} after host`);
  return colonPort.slice(1);
}

/** Percent-decoding as net/url does for a path: bytes, so `%ff` is kept rather than refused. */
function unescapePath(raw: string, path: string): string {
  if (!path.includes('%')) return path;
  const bad = /%(?![0-9A-Fa-f]{2})/.exec(path);
  if (bad) throw parseError(raw, `invalid URL escape ${goQuote(path.slice(bad.index, bad.index + 3))}`);
  const parts = path.split(/(%[0-9A-Fa-f]{2})/);
  const bytes = parts.map((part, i) => (i % 2 === 1 ? Buffer.from([parseInt(part.slice(1), 16)]) : Buffer.from(part)));
  return Buffer.concat(bytes).toString('utf8');
}

function parseError(raw: string, reason: string): ToolUrlError {
  return new ToolUrlError(`invalid URL: parse ${goQuote(raw)}: ${reason}`);
}
