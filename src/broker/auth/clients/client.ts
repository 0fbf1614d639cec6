import { OAuthError } from '../oauth-error.ts';
import { isLoopbackUrlHost } from '../../../transport/loopback.ts';

/**
 * The OAuth clients the broker's authorization server knows, whatever their
 * source: confidential web clients from config (`webClients[]`), clients
 * registered at `/register` (RFC 7591), clients whose `client_id` is the URL
 * of their metadata document (CIMD), and the built-in public client of
 * `demarkus-broker login`.
 */
export type ClientKind = 'web' | 'registered' | 'metadata-document' | 'builtin';

export type TokenEndpointAuthMethod = 'none' | 'client_secret_basic' | 'client_secret_post';

export type OAuthClient = {
  clientId: string;
  kind: ClientKind;
  name: string;
  redirectUris: readonly string[];
  authMethod: TokenEndpointAuthMethod;
  /**
   * Grant types the client may use (RFC 7591 §2 `grant_types`), enforced at
   * every endpoint: `authorization_code` at /authorize and the token endpoint,
   * the device grant at /device_authorization, `refresh_token` on refresh
   * (and only such clients are given refresh tokens). `response_type=code`
   * goes with `authorization_code` (RFC 7591 §2.1).
   */
  grantTypes: readonly string[];
  /** Hex SHA-256 of the client secret; confidential clients only. */
  secretHash?: string;
  /** Clients from the operator's config skip the consent page; anyone can register the others. */
  firstParty: boolean;
  /** The built-in CLI client accepts any loopback redirect (RFC 8252 §7.3). */
  anyLoopbackRedirect?: boolean;
  /**
   * A web client configured with `bearer: id_token`: every token response
   * (code and refresh) carries an ID token, which the gateway accepts as this
   * client's bearer. Only operator-configured web clients can have it.
   */
  idTokenBearer?: boolean;
};

/** The public client `demarkus-broker login` uses (device flow; loopback redirects for native apps). */
export const builtinCliClientId = 'demarkus-cli';

export const builtinCliClient: OAuthClient = {
  clientId: builtinCliClientId,
  kind: 'builtin',
  name: 'demarkus-broker CLI',
  redirectUris: [],
  authMethod: 'none',
  grantTypes: ['authorization_code', 'refresh_token', 'urn:ietf:params:oauth:grant-type:device_code'],
  firstParty: false,
  anyLoopbackRedirect: true,
};

/** OAuth 2.1 §5.2 `unauthorized_client` unless the client registered `grantType`. */
export function requireGrantType(client: OAuthClient, grantType: string): void {
  if (!client.grantTypes.includes(grantType))
    throw new OAuthError('unauthorized_client', `this client is not registered for the ${grantType} grant`);
}

export function isConfidential(client: OAuthClient): boolean {
  return client.secretHash !== undefined;
}

/** `http://127.0.0.1:PORT/...`, `http://[::1]:PORT/...` or `http://localhost:PORT/...`, without userinfo. */
export function isLoopbackRedirect(uri: string): boolean {
  const url = URL.canParse(uri) ? new URL(uri) : null;
  return (
    url !== null &&
    url.protocol === 'http:' &&
    isLoopbackUrlHost(url.hostname) &&
    url.username === '' &&
    url.password === '' &&
    url.hash === ''
  );
}

/**
 * RFC 8252 §7.1: a private-use URI scheme in reverse-domain form
 * (`com.example.app:/callback`), which hands the redirect to an app on the
 * person's device; never a scheme a browser acts on itself.
 */
export function isPrivateUseSchemeRedirect(uri: string): boolean {
  const url = URL.canParse(uri) ? new URL(uri) : null;
  // Reverse-domain schemes only (RFC 8252 §7.1): the dot this asks for already rules out
  // javascript:, data:, file: and vbscript:.
  return url !== null && /^[a-z][a-z0-9+-]*\.[a-z0-9.+-]+:$/.test(url.protocol);
}

/**
 * Where a redirect sends the person, in the words a page shows them: the host
 * of a web address, or the scheme and host of an app's private-use address.
 */
export function redirectDestination(uri: string): string {
  const url = new URL(uri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.host : `${url.protocol}//${url.host}`;
}

/**
 * OAuth 2.1 §2.3.1 / RFC 9700 §4.1.3: redirect URIs are compared as exact
 * strings. The one exception is RFC 8252 §7.3: for a loopback redirect the
 * port is chosen at run time, so it is ignored (scheme, host, path and query
 * must still match exactly).
 */
export function redirectUriAllowed(client: OAuthClient, uri: string): boolean {
  if (client.redirectUris.includes(uri)) return true;
  if (!isLoopbackRedirect(uri)) return false;
  if (client.anyLoopbackRedirect === true) return true;
  if (client.kind === 'web') return false;
  const withoutPort = (value: string) => {
    const url = new URL(value);
    url.port = '';
    return url.href;
  };
  const wanted = withoutPort(uri);
  return client.redirectUris.some((registered) => isLoopbackRedirect(registered) && withoutPort(registered) === wanted);
}
