/**
 * Validation of an authorization request (OAuth 2.1 §4.1.1), in the order
 * RFC 6749 §4.1.2.1 demands: until the client and its redirect URI are
 * trusted, errors are shown to the user and never redirected (an open
 * redirector otherwise); after that, errors go back to the client's redirect
 * URI with `state` and `iss` (RFC 9207), but only where that URI is trusted
 * without the person's say (`errorsRedirectAtOnce`).
 */
import { OAuthError } from '../oauth-error.ts';
import { isValidCodeChallenge } from '../pkce.ts';
import {
  isLoopbackRedirect,
  isPrivateUseSchemeRedirect,
  redirectUriAllowed,
  requireGrantType,
  type OAuthClient,
} from '../clients/client.ts';
import { grantedScope } from '../tokens/scope.ts';

export type AuthorizationRequest = {
  clientId: string;
  redirectUri: string;
  /** OAuth 2.1 §4.1.3: the token request must repeat redirect_uri when the authorization request carried it. */
  redirectUriGiven: boolean;
  state?: string;
  codeChallenge: string;
  scope: string;
  resource: string;
  nonce?: string;
};

/** Errors before the redirect URI is trusted: shown on a page. */
export class UntrustedRequestError extends OAuthError {}

export function trustedRedirect(client: OAuthClient | null, params: Readonly<Record<string, string>>): string {
  if (client === null) throw new UntrustedRequestError('invalid_request', 'unknown client_id');
  const given = params.redirect_uri;
  if (given === undefined || given === '') {
    // OAuth 2.1 §2.3.2: may be omitted only when exactly one redirect URI is registered.
    if (client.redirectUris.length === 1 && client.anyLoopbackRedirect !== true) return client.redirectUris[0]!;
    throw new UntrustedRequestError('invalid_request', 'redirect_uri is required');
  }
  if (!redirectUriAllowed(client, given))
    throw new UntrustedRequestError('invalid_request', 'redirect_uri is not registered for this client');
  return given;
}

/**
 * Whether an error found after `redirectUri` matched the client may be sent
 * there at once, before the person has seen anything (RFC 9700 §4.11.2:
 * redirect automatically only to trusted addresses). Registration is
 * anonymous, so a matching https address proves only that someone registered
 * it: a phishing page can be. Trusted are a client the operator configured,
 * and addresses that reach no remote site: loopback (RFC 8252 §7.3) and an
 * app's private-use scheme (RFC 8252 §7.1).
 */
export function errorsRedirectAtOnce(client: OAuthClient, redirectUri: string): boolean {
  return client.firstParty || isLoopbackRedirect(redirectUri) || isPrivateUseSchemeRedirect(redirectUri);
}

/** The rest of the request, once `redirectUri` is trusted; OAuthErrors here are redirected to the client. */
export function checkAuthorizationParams(
  client: OAuthClient,
  redirectUri: string,
  params: Readonly<Record<string, string>>,
  resource: string,
): AuthorizationRequest {
  if (params.response_type !== 'code')
    throw new OAuthError('unsupported_response_type', 'only response_type=code is supported');
  // Registered with response type "code" is the same as registered for this grant (RFC 7591 §2.1).
  requireGrantType(client, 'authorization_code');
  const challenge = params.code_challenge;
  if (challenge === undefined || challenge === '')
    throw new OAuthError('invalid_request', 'code_challenge is required (PKCE)');
  if (params.code_challenge_method !== 'S256')
    throw new OAuthError('invalid_request', 'only code_challenge_method=S256 is supported');
  if (!isValidCodeChallenge(challenge))
    throw new OAuthError('invalid_request', 'code_challenge is not a base64url SHA-256 value');
  checkResource(params.resource, resource);
  const request: AuthorizationRequest = {
    clientId: client.clientId,
    redirectUri,
    redirectUriGiven: params.redirect_uri !== undefined && params.redirect_uri !== '',
    codeChallenge: challenge,
    scope: grantedScope(params.scope),
    resource,
  };
  if (params.state !== undefined && params.state !== '') request.state = params.state;
  if (params.nonce !== undefined && params.nonce !== '') request.nonce = params.nonce;
  return request;
}

/** RFC 8707 §2: the only resource the broker issues tokens for is its MCP resource. */
export function checkResource(requested: string | undefined, resource: string): void {
  if (requested === undefined || requested === '') return;
  if (requested.replace(/\/+$/, '') !== resource)
    throw new OAuthError('invalid_target', 'resource must be the MCP resource of this broker', {
      detail: `requested resource ${requested}`,
    });
}

/** The redirect back to the client: `code` or `error`, `state`, and `iss` (RFC 9207 §2). */
export function clientRedirect(
  redirectUri: string,
  issuer: string,
  params: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', issuer);
  return url.href;
}
