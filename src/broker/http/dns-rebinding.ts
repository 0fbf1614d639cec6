/**
 * DNS-rebinding defence for the MCP listener (MCP transports, Streamable HTTP
 * "Security Warning": servers MUST validate `Origin`; Host is checked too so a
 * rebound name pointing at the broker is refused). Pure checks; the hook
 * lives in the listener.
 */
import { isLoopbackUrlHost, loopbackUrlHosts } from '../../transport/loopback.ts';

export type RebindingPolicy = {
  /** Names a request's Host may carry: a hostname (any port), or `host:port` (that port only). */
  allowedHosts: readonly string[];
  /** Exact origins (`scheme://host[:port]`) a browser request may come from; `*` (CORS for any origin) admits every one. */
  allowedOrigins: readonly string[];
  /** Also admit any loopback origin, whatever its port (local development UIs). */
  allowLoopbackOrigins: boolean;
};

export type RebindingVerdict = { ok: true } | { ok: false; reason: string };

/**
 * The default policy: loopback names plus the public URL's own host and
 * origin, so a broker behind its configured name works without more setup.
 */
export function defaultRebindingPolicy(
  publicUrl: string,
  overrides: { allowedHosts?: readonly string[]; allowedOrigins?: readonly string[] } = {},
): RebindingPolicy {
  const url = new URL(publicUrl);
  return {
    allowedHosts: (overrides.allowedHosts ?? [...loopbackUrlHosts, url.hostname]).map((h) => h.toLowerCase()),
    allowedOrigins: overrides.allowedOrigins ?? [url.origin],
    allowLoopbackOrigins: overrides.allowedOrigins === undefined,
  };
}

/**
 * RFC 9110 §7.2: Host is `host[:port]`, compared case-insensitively. An allowed
 * entry without a port admits the name on any port; one with a port admits
 * exactly that authority (the config derives such entries from public URLs).
 */
export function checkHost(hostHeader: string | undefined, policy: RebindingPolicy): RebindingVerdict {
  if (hostHeader === undefined || hostHeader === '') return { ok: false, reason: 'missing Host header' };
  const parsed = authorityOf(hostHeader);
  if (parsed === undefined) return { ok: false, reason: 'invalid Host header' };
  const allowed = policy.allowedHosts.some((entry) =>
    hasPort(entry) ? entry === parsed.authority : entry === parsed.hostname,
  );
  return allowed ? { ok: true } : { ok: false, reason: `Host ${parsed.hostname} is not allowed` };
}

function hasPort(entry: string): boolean {
  return /^\[[^\]]*\]:\d+$/.test(entry) || /^[^:[\]]+:\d+$/.test(entry);
}

/** A request without Origin is not from a browser and passes; `null` and unparsable origins are refused. */
export function checkOrigin(originHeader: string | undefined, policy: RebindingPolicy): RebindingVerdict {
  if (originHeader === undefined) return { ok: true };
  let origin: URL;
  try {
    origin = new URL(originHeader);
  } catch {
    return { ok: false, reason: 'invalid Origin header' };
  }
  if (origin.origin === 'null') return { ok: false, reason: 'opaque Origin is not allowed' };
  // `*` is the operator's CORS choice (server.cors): the Host check still stops a rebound name.
  if (policy.allowedOrigins.includes(origin.origin) || policy.allowedOrigins.includes('*')) return { ok: true };
  if (policy.allowLoopbackOrigins && isLoopbackUrlHost(origin.hostname)) return { ok: true };
  return { ok: false, reason: `Origin ${origin.origin} is not allowed` };
}

function authorityOf(hostHeader: string): { hostname: string; authority: string } | undefined {
  try {
    const url = new URL(`http://${hostHeader}`);
    // A Host with userinfo or a path is not a Host.
    if (url.username !== '' || url.password !== '' || url.pathname !== '/' || url.search !== '' || url.hash !== '')
      return undefined;
    const hostname = url.hostname.toLowerCase();
    return { hostname, authority: url.port === '' ? hostname : `${hostname}:${url.port}` };
  } catch {
    return undefined;
  }
}
