/**
 * RFC 7591 §2 client metadata, validated at the edge. Redirect URIs must be
 * https, loopback http (native apps, RFC 8252 §7.3) or a private-use scheme
 * in reverse-domain form (RFC 8252 §7.1); fragments are never allowed
 * (RFC 6749 §3.1.2). Registration errors use RFC 7591 §3.2.2 codes.
 */
import { OAuthError } from '../oauth-error.ts';
import { isLoopbackRedirect, isPrivateUseSchemeRedirect, type TokenEndpointAuthMethod } from './client.ts';

export const deviceCodeGrantType = 'urn:ietf:params:oauth:grant-type:device_code';
export const supportedGrantTypes: readonly string[] = ['authorization_code', 'refresh_token', deviceCodeGrantType];
/**
 * What a client that omits `grant_types` gets. RFC 7591 §2 says
 * `authorization_code` alone, but the broker's access tokens live 15 minutes
 * and OAuth 2.1 public clients rely on refresh tokens: without this, such a
 * client would send its user back to the consent page four times an hour.
 * A client that lists its grant types gets exactly those.
 */
export const defaultGrantTypes: readonly string[] = ['authorization_code', 'refresh_token'];
export const supportedAuthMethods: readonly TokenEndpointAuthMethod[] = [
  'none',
  'client_secret_basic',
  'client_secret_post',
];

/**
 * Size bounds of one anonymous registration: a few redirect URIs of a sane
 * length, and a whole record of at most 4 KiB, so that what anyone may store
 * stays small (a native app registers one loopback URI; a web app a handful).
 */
const maxRedirectUris = 10;
const maxUriLength = 2000;
const maxNameLength = 200;
export const maxRegistrationBytes = 4096;

export type ClientRegistration = {
  clientName?: string;
  redirectUris: string[];
  grantTypes: string[];
  authMethod: TokenEndpointAuthMethod;
  applicationType?: 'web' | 'native';
};

export function parseRegistrationRequest(body: unknown): ClientRegistration {
  const meta = body === undefined || body === null ? {} : body;
  if (typeof meta !== 'object' || Array.isArray(meta))
    throw new OAuthError('invalid_client_metadata', 'client metadata must be a JSON object');
  const m = meta as Record<string, unknown>;
  const grantTypes = stringList(m.grant_types, 'grant_types') ?? defaultGrantTypes;
  const unknownGrant = grantTypes.find((g) => !supportedGrantTypes.includes(g));
  if (unknownGrant !== undefined)
    throw new OAuthError('invalid_client_metadata', `grant type ${JSON.stringify(unknownGrant)} is not supported`);
  const responseTypes =
    stringList(m.response_types, 'response_types') ?? (grantTypes.includes('authorization_code') ? ['code'] : []);
  if (responseTypes.some((r) => r !== 'code'))
    throw new OAuthError('invalid_client_metadata', 'only response type "code" is supported');
  // RFC 7591 §2.1: response type "code" and the authorization_code grant go together.
  if (grantTypes.includes('authorization_code') !== responseTypes.includes('code'))
    throw new OAuthError(
      'invalid_client_metadata',
      'grant type "authorization_code" and response type "code" must be registered together',
    );
  const authMethod = m.token_endpoint_auth_method ?? 'client_secret_basic';
  if (typeof authMethod !== 'string' || !supportedAuthMethods.includes(authMethod as TokenEndpointAuthMethod)) {
    throw new OAuthError(
      'invalid_client_metadata',
      `token_endpoint_auth_method must be one of ${supportedAuthMethods.join(', ')}`,
    );
  }
  const redirectUris = stringList(m.redirect_uris, 'redirect_uris') ?? [];
  if (grantTypes.includes('authorization_code') && redirectUris.length === 0)
    throw new OAuthError('invalid_redirect_uri', 'redirect_uris is required for the authorization_code grant');
  if (redirectUris.length > maxRedirectUris)
    throw new OAuthError('invalid_redirect_uri', `at most ${maxRedirectUris} redirect URIs`);
  for (const uri of redirectUris) checkRedirectUri(uri);
  const registration: ClientRegistration = {
    redirectUris: [...new Set(redirectUris)],
    grantTypes: [...new Set(grantTypes)],
    authMethod: authMethod as TokenEndpointAuthMethod,
  };
  if (m.client_name !== undefined) {
    if (typeof m.client_name !== 'string' || m.client_name.length > maxNameLength)
      throw new OAuthError(
        'invalid_client_metadata',
        `client_name must be a string of at most ${maxNameLength} characters`,
      );
    if (m.client_name.trim() !== '') registration.clientName = m.client_name.trim();
  }
  if (m.application_type !== undefined) {
    if (m.application_type !== 'web' && m.application_type !== 'native')
      throw new OAuthError('invalid_client_metadata', 'application_type must be "web" or "native"');
    registration.applicationType = m.application_type;
  }
  if (Buffer.byteLength(JSON.stringify(registration)) > maxRegistrationBytes)
    throw new OAuthError(
      'invalid_client_metadata',
      `client metadata must fit in ${maxRegistrationBytes} bytes (redirect URIs and name together)`,
    );
  return registration;
}

function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) {
    throw new OAuthError(
      field === 'redirect_uris' ? 'invalid_redirect_uri' : 'invalid_client_metadata',
      `${field} must be an array of strings`,
    );
  }
  return value as string[];
}

/** Throws invalid_redirect_uri unless `uri` is acceptable for a client anyone may register. */
export function checkRedirectUri(uri: string): void {
  const fail = (why: string) => new OAuthError('invalid_redirect_uri', `redirect URI ${why}`);
  if (uri.length > maxUriLength) throw fail('is too long');
  const url = URL.canParse(uri) ? new URL(uri) : null;
  if (url === null) throw fail('is not an absolute URI');
  if (uri.includes('#')) throw fail('must not contain a fragment');
  if (url.username !== '' || url.password !== '') throw fail('must not carry userinfo');
  if (url.protocol === 'https:') return;
  if (url.protocol === 'http:') {
    if (isLoopbackRedirect(uri)) return;
    throw fail('must use https unless it is a loopback address');
  }
  if (!isPrivateUseSchemeRedirect(uri))
    throw fail('must be https, loopback http or a reverse-domain private-use scheme');
}
