/**
 * Where the CLI may send a bearer token. Plain http only to this computer
 * (the rule `login` applies to --issuer; OAuth 2.1 §1.5 requires TLS for
 * tokens on the wire). And the access token `login` kept goes only to the
 * resource it was issued for: its `aud` is the broker's MCP resource URL
 * (RFC 8707; src/broker/trust.ts `mcpResourceUrl`, also the `resource` of the
 * broker's protected-resource metadata, RFC 9728), so a mistyped or planted
 * URL, or a local port some other program listens on, never receives it.
 */
import { decodeJwt } from 'jose';
import { isLoopbackUrlHost } from '../transport/loopback.ts';
import type { StoredSignIn } from './credentials.ts';
import { UsageError } from './usage-error.ts';

/** The broker's MCP endpoint that `npm start` serves, for tokens given on the command line. */
export const devBrokerMcpUrl = 'http://127.0.0.1:8081/mcp';

/** A URL given on the command line or in the environment, and which of them named it (for messages). */
export type NamedUrl = { url: string; source: string };

/** `url` as a URL a token may be sent to: https, or plain http to a loopback host; else a usage error naming `source`. */
export function tokenSafeUrl(url: string, source: string): URL {
  if (!URL.canParse(url)) throw new UsageError(`${source}: ${JSON.stringify(url)} is not a URL`);
  const parsed = new URL(url);
  if (parsed.protocol === 'https:' || (parsed.protocol === 'http:' && isLoopbackUrlHost(parsed.hostname)))
    return parsed;
  throw new UsageError(
    `${source} must use https (plain http only for a broker on this computer: localhost, 127.0.0.1 or [::1]), got ${url}`,
  );
}

/** The first of `--url` and the environment variable that is set; an empty variable counts as unset. */
export function requestedUrl(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): NamedUrl | undefined {
  if (flag !== undefined) return { url: flag, source: '--url' };
  const fromEnv = env.DEMARKUS_BROKER_URL || undefined;
  return fromEnv === undefined ? undefined : { url: fromEnv, source: 'DEMARKUS_BROKER_URL' };
}

/** The MCP endpoint for a token given explicitly: the one asked for, else npm start's broker. */
export function explicitTokenUrl(requested: NamedUrl | undefined): URL {
  return requested === undefined ? new URL(devBrokerMcpUrl) : tokenSafeUrl(requested.url, requested.source);
}

/**
 * The MCP endpoint the kept sign-in's access token may be sent to: the
 * resource it was issued for. A different URL asked for is refused, with the
 * ways to go there: no URL, an explicit token, or a sign-in to that broker.
 */
export function signedInUrl(signIn: StoredSignIn, requested: NamedUrl | undefined): URL {
  const audiences = tokenAudiences(signIn.accessToken);
  const resource = audiences[0];
  if (resource === undefined)
    throw new UsageError(
      `the access token login kept for ${signIn.issuer} names no broker (no URL in its "aud" claim), so there is no telling where it may be sent; run demarkus-broker login --issuer ${signIn.issuer} again, or pass --token TOKEN with --url URL`,
    );
  if (requested === undefined) return tokenSafeUrl(resource.href, `the access token's audience (${signIn.issuer})`);
  const asked = tokenSafeUrl(requested.url, requested.source);
  if (audiences.some((audience) => sameResource(audience, asked))) return asked;
  throw new UsageError(
    `${requested.source} ${requested.url} is not where the kept sign-in may go: its access token is for ${resource.href} (signed in to ${signIn.issuer}) and is sent nowhere else; leave out ${requested.source} to use the broker it is for, pass --token TOKEN (env DEMARKUS_BROKER_TOKEN) to use another token with ${requested.url}, or sign in to that broker with demarkus-broker login --issuer <its URL>`,
  );
}

/** The http(s) URLs in the token's `aud`, the MCP resource first; none for a token that is not a JWT. */
function tokenAudiences(token: string): URL[] {
  let aud: unknown;
  try {
    aud = decodeJwt(token).aud;
  } catch {
    return [];
  }
  const urls = (Array.isArray(aud) ? aud : [aud])
    .filter((value): value is string => typeof value === 'string' && URL.canParse(value))
    .map((value) => new URL(value))
    .filter((url) => url.protocol === 'https:' || url.protocol === 'http:');
  // A broker's token may also name its issuer URL (src/broker/trust.ts `audiences`); the MCP endpoint is the one to call.
  return [
    ...urls.filter((url) => url.pathname.endsWith('/mcp')),
    ...urls.filter((url) => !url.pathname.endsWith('/mcp')),
  ];
}

/** The same resource, up to a trailing slash (RFC 9728 §1.2 writes resources without one). */
function sameResource(a: URL, b: URL): boolean {
  const strip = (url: URL) => `${url.origin}${url.pathname.replace(/\/+$/, '')}${url.search}`;
  return strip(a) === strip(b);
}
