import { defaultPort } from '../../protocol/limits.ts';
import { canonicalPath } from '../../protocol/paths.ts';

/**
 * Link URLs as graph identities. Links are resolved against the document URL
 * by RFC 3986 §5.2 reference resolution; `mark://` results are then put in
 * identity form (ADR 0005/0018): lower-case host, default port 6309 dropped,
 * percent-encoding normalized and dot segments removed (RFC 3986 §6.2.2),
 * empty segments and a trailing slash dropped as the world does, and
 * query and fragment dropped (a Mark document has neither), so one document
 * has one node URL however a link spells it.
 */

type UriParts = { scheme: string | null; authority: string | null; path: string; query: string | null };

// RFC 3986 Appendix B: the parsing regular expression, fragment split off first.
const uriShape = /^(?:([A-Za-z][A-Za-z0-9+.-]*):)?(?:\/\/([^/?#]*))?([^?#]*)(?:\?([^#]*))?/s;

function parseUri(text: string): UriParts {
  const m = uriShape.exec(text)!;
  return { scheme: m[1] ?? null, authority: m[2] ?? null, path: m[3] ?? '', query: m[4] ?? null };
}

/** RFC 3986 §5.2.2, strict: a reference with a scheme is absolute. */
export function resolveReference(base: string, reference: string): string {
  const ref = parseUri(stripFragment(reference));
  if (ref.scheme !== null) return recompose({ ...ref, path: removeDotSegments(ref.path) });
  const b = parseUri(stripFragment(base));
  if (ref.authority !== null) return recompose({ ...ref, scheme: b.scheme, path: removeDotSegments(ref.path) });
  if (ref.path === '') return recompose({ ...b, query: ref.query ?? b.query });
  const path = ref.path.startsWith('/') ? ref.path : mergePaths(b, ref.path);
  return recompose({ scheme: b.scheme, authority: b.authority, path: removeDotSegments(path), query: ref.query });
}

/** RFC 3986 §5.2.3. */
function mergePaths(base: UriParts, refPath: string): string {
  if (base.authority !== null && base.path === '') return `/${refPath}`;
  return base.path.slice(0, base.path.lastIndexOf('/') + 1) + refPath;
}

/** RFC 3986 §5.2.4: `.` and `..` segments, never climbing above the root. */
export function removeDotSegments(path: string): string {
  if (!path.includes('/.') && !path.startsWith('.')) return path;
  const out: string[] = [];
  const segments = path.split('/');
  segments.forEach((segment, i) => {
    const last = i === segments.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..' && out.length > (path.startsWith('/') ? 1 : 0)) out.pop();
      if (last) out.push('');
      return;
    }
    out.push(segment);
  });
  const joined = out.join('/');
  return path.startsWith('/') && !joined.startsWith('/') ? `/${joined}` : joined;
}

/** RFC 3986 §5.3. */
function recompose(parts: UriParts): string {
  let out = parts.scheme === null ? '' : `${parts.scheme}:`;
  if (parts.authority !== null) out += `//${parts.authority}`;
  out += parts.path;
  if (parts.query !== null) out += `?${parts.query}`;
  return out;
}

function stripFragment(text: string): string {
  const hash = text.indexOf('#');
  return hash < 0 ? text : text.slice(0, hash);
}

export function isMarkUrl(text: string): boolean {
  return /^mark:\/\//i.test(text);
}

/**
 * The identity form of a `mark://` URL, or null when it has no usable
 * authority (empty host, userinfo, bad port).
 */
export function canonicalMarkUrl(text: string): string | null {
  const parts = parseUri(stripFragment(text));
  if (parts.scheme?.toLowerCase() !== 'mark' || parts.authority === null) return null;
  const authority = canonicalAuthority(parts.authority);
  if (authority === null) return null;
  // Percent-encoding first (RFC 3986 §6.2.2.2, then §6.2.2.3): `%2e%2e` is a dot segment too.
  // Then the world's own path cleaning (Mark SPEC §2.0 step 3, Go `path.Clean`): `//a.md`
  // and `/a.md/` are the document `/a.md`, so they are its node too, never one node each.
  return `mark://${authority}${canonicalPath(normalizePercentEncoding(parts.path))}`;
}

/** `host[:port]` lower-cased with the default port dropped; null for userinfo or a bad port. */
export function canonicalAuthority(authority: string): string | null {
  if (authority.includes('@')) return null;
  const m = /^(\[[^\]]*\]|[^:]*)(?::(\d*))?$/.exec(authority.toLowerCase());
  if (m === null || m[1] === '' || /[\s%]/.test(m[1]!)) return null;
  const port = m[2];
  if (port === undefined || port === '' || Number(port) === defaultPort) return m[1]!;
  if (Number(port) < 1 || Number(port) > 65_535) return null;
  return `${m[1]}:${Number(port)}`;
}

const unreserved = /[A-Za-z0-9\-._~]/;
// pchar (RFC 3986 §3.3) plus "/": unreserved, sub-delims, ":" and "@".
const pathSafe = /[A-Za-z0-9\-._~!$&'()*+,;=:@/]/;

/**
 * RFC 3986 §6.2.2: percent-encoded unreserved characters are decoded, other
 * escapes get upper-case hex, and anything outside pchar (spaces, `|`,
 * controls, non-ASCII) is encoded as UTF-8 bytes, so identities never hold
 * characters that would break a `/graph.md` table cell.
 */
export function normalizePercentEncoding(path: string): string {
  let out = '';
  for (let i = 0; i < path.length; i++) {
    const ch = path[i]!;
    if (ch === '%' && /^[0-9A-Fa-f]{2}$/.test(path.slice(i + 1, i + 3))) {
      const byte = parseInt(path.slice(i + 1, i + 3), 16);
      const decoded = String.fromCharCode(byte);
      out += byte < 0x80 && unreserved.test(decoded) ? decoded : `%${path.slice(i + 1, i + 3).toUpperCase()}`;
      i += 2;
    } else if (pathSafe.test(ch)) {
      out += ch;
    } else {
      const cp = path.codePointAt(i)!;
      if (cp > 0xffff) i++;
      for (const byte of Buffer.from(String.fromCodePoint(cp)))
        out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
    }
  }
  return out;
}

/**
 * A non-`mark://` link target, kept as written but with whitespace, `|` and
 * controls percent-encoded so the export's table rows stay parseable.
 */
export function externalLinkIdentity(text: string): string {
  return stripFragment(text).replace(/[\s|\u0000-\u001f\u007f]/gu, (ch) => {
    return [...Buffer.from(ch)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join('');
  });
}

/** The identity of a link `dest` found in the document at `docUrl`. */
export function resolveLinkTarget(docUrl: string, dest: string): string {
  // Go's links.Resolve keeps anything carrying "://" as written; RFC 3986 gives
  // the same answer for those, and also resolves scheme-less references.
  const resolved = resolveReference(docUrl, dest);
  if (isMarkUrl(resolved)) return canonicalMarkUrl(resolved) ?? externalLinkIdentity(resolved);
  return externalLinkIdentity(resolved);
}

/** Percent-encodes a decoded request path for a URL: `%` itself included, `/` kept. */
export function encodeRawPath(path: string): string {
  return normalizePercentEncoding(path.replaceAll('%', '%25'));
}

/** The node URL of a document: `mark://{world}` + its request path, encoded. */
export function documentUrl(world: string, path: string): string {
  const encoded = encodeRawPath(path.startsWith('/') ? path : `/${path}`);
  return canonicalMarkUrl(`mark://${world}${encoded}`) ?? `mark://${world}${encoded}`;
}

/**
 * The world a `mark://{world}/...` identity names (the inverse of
 * `documentUrl`); "" for any other URL.
 */
export function worldOfUrl(url: string): string {
  const match = /^mark:\/\/([^/]+)/.exec(url);
  return match === null ? '' : match[1]!;
}
