/**
 * The token endpoint (OAuth 2.1 §3.2): client authentication first, then one
 * handler per grant type. Every failure is an OAuthError; every success is a
 * broker access token for the MCP resource, plus a refresh token for clients
 * registered for the refresh_token grant.
 */
import { authenticateClient, parseClientCredentials } from './clients/client-authentication.ts';
import { requireGrantType, type OAuthClient } from './clients/client.ts';
import { deviceCodeGrantType, supportedGrantTypes } from './clients/registration-request.ts';
import { checkResource } from './authorize/authorization-request.ts';
import { OAuthError } from './oauth-error.ts';
import { StateStoreError } from '../state/index.ts';
import { verifyS256 } from './pkce.ts';
import { assertStillAllowed } from './sign-in-identity.ts';
import type { SignInContext } from './sign-in-context.ts';
import type { RefreshGrant } from './tokens/refresh-tokens.ts';
import { tokenResponse, type TokenResponse } from './tokens/token-response.ts';

type Form = Readonly<Record<string, string>>;

export async function tokenEndpoint(
  context: SignInContext,
  authorization: string | undefined,
  form: Form,
): Promise<TokenResponse> {
  const credentials = parseClientCredentials(authorization, form);
  const client = authenticateClient(await context.clients.find(credentials.clientId), credentials);
  if (form.grant_type !== undefined && supportedGrants.has(form.grant_type)) requireGrantType(client, form.grant_type);
  switch (form.grant_type) {
    case 'authorization_code':
      return authorizationCodeGrant(context, client, form);
    case 'refresh_token':
      return refreshTokenGrant(context, client, form);
    case deviceCodeGrantType:
      return deviceCodeGrant(context, client, form);
    case undefined:
    case '':
      throw new OAuthError('invalid_request', 'grant_type is required');
    default:
      throw new OAuthError('unsupported_grant_type', `grant_type ${JSON.stringify(form.grant_type)} is not supported`);
  }
}

function required(form: Form, name: string): string {
  const value = form[name];
  if (value === undefined || value === '') throw new OAuthError('invalid_request', `${name} is required`);
  return value;
}

async function authorizationCodeGrant(context: SignInContext, client: OAuthClient, form: Form): Promise<TokenResponse> {
  const code = required(form, 'code');
  const verifier = required(form, 'code_verifier');
  const redeemed = await context.flows.redeemCode(code);
  if (redeemed.kind === 'replayed') {
    // RFC 6749 §4.1.2: a code used twice revokes the tokens issued from it.
    if (redeemed.record.family !== undefined) await context.refreshTokens.revokeFamily(redeemed.record.family);
    throw new OAuthError('invalid_grant', 'authorization code was already used', {
      detail: 'code replay; tokens issued from it revoked',
    });
  }
  if (redeemed.kind !== 'redeemed')
    throw new OAuthError('invalid_grant', 'authorization code is invalid or expired', {
      detail: `code ${redeemed.kind}`,
    });
  const { request, identity, authTime, family } = redeemed.record;
  // The code is spent whatever follows: a wrong verifier or redirect cannot be retried (RFC 9700 §2.1.1).
  if (request.clientId !== client.clientId)
    throw new OAuthError('invalid_grant', 'authorization code was issued to another client');
  if ((request.redirectUriGiven || form.redirect_uri !== undefined) && form.redirect_uri !== request.redirectUri)
    throw new OAuthError('invalid_grant', 'redirect_uri does not match the authorization request');
  if (!verifyS256(verifier, request.codeChallenge))
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge');
  checkResource(form.resource, context.resource);
  await recordUse(context, client);
  const issued = await issueRefresh(
    context,
    client,
    { identity, scope: request.scope, resource: context.resource },
    family,
  );
  // A replay that came while the family was being written found nothing to revoke yet: it marked
  // the code, so the redemption revokes what it issued itself and hands out nothing.
  if (await context.flows.wasReplayed(code)) {
    await context.refreshTokens.revokeFamily(family);
    throw new OAuthError('invalid_grant', 'authorization code was already used', {
      detail: 'code replayed during its redemption; tokens issued from it revoked',
    });
  }
  return tokenResponse(signer(context), {
    clientId: client.clientId,
    identity,
    scope: request.scope,
    resource: context.resource,
    ...(issued === undefined ? {} : { refreshToken: issued.token }),
    authTime,
    ...(request.nonce === undefined ? {} : { nonce: request.nonce }),
    ...idTokenBearer(client),
  });
}

async function refreshTokenGrant(context: SignInContext, client: OAuthClient, form: Form): Promise<TokenResponse> {
  const token = required(form, 'refresh_token');
  checkResource(form.resource, context.resource);
  const outcome = await context.refreshTokens.rotate(token, client.clientId);
  if (outcome.kind === 'reused')
    throw new OAuthError('invalid_grant', 'refresh token was already used', {
      detail: `refresh token reuse: family ${outcome.family} revoked`,
    });
  if (outcome.kind === 'invalid')
    throw new OAuthError('invalid_grant', 'refresh token is invalid or expired', {
      detail: `refresh token ${outcome.reason}`,
    });
  try {
    assertStillAllowed(outcome.grant.identity, context.allowDomains);
  } catch (error) {
    await context.refreshTokens.revokeFamily(outcome.family);
    throw new OAuthError('invalid_grant', 'domain not permitted', {
      detail: 'hd no longer in oidc.allowDomains; family revoked',
      cause: error,
    });
  }
  const { identity, scope } = outcome.grant;
  return tokenResponse(signer(context), {
    clientId: client.clientId,
    identity,
    scope,
    resource: context.resource,
    refreshToken: outcome.token,
    ...idTokenBearer(client),
  });
}

async function deviceCodeGrant(context: SignInContext, client: OAuthClient, form: Form): Promise<TokenResponse> {
  if (client.kind === 'web') throw new OAuthError('unauthorized_client', 'web clients do not use the device flow');
  const deviceCode = required(form, 'device_code');
  const outcome = await context.devices.poll(deviceCode, client.clientId);
  if (outcome.kind !== 'approved') throw new OAuthError(outcome.kind, outcome.detail);
  const { grant } = outcome;
  const identity = grant.identity!;
  await recordUse(context, client);
  const issued = await issueRefresh(context, client, { identity, scope: grant.scope, resource: grant.resource });
  return tokenResponse(signer(context), {
    clientId: client.clientId,
    identity,
    scope: grant.scope,
    resource: grant.resource,
    ...(issued === undefined ? {} : { refreshToken: issued.token }),
  });
}

/**
 * Makes a registered client's first use durable before anything is issued to
 * it: were the write to fail after a refresh family was issued, the family
 * would outlive the client's short-lived registration and be refused as an
 * unknown client. A failure here spends the code or device grant and issues
 * nothing; the registration stays (for `oauth.registration.unusedTtl`), so
 * signing in again with the same client works.
 */
async function recordUse(context: SignInContext, client: OAuthClient): Promise<void> {
  try {
    await context.clients.touch(client);
  } catch (error) {
    if (!(error instanceof StateStoreError)) throw error;
    throw new OAuthError(
      'temporarily_unavailable',
      "the broker could not record this client's first sign-in, so nothing was issued; sign in again (the client's registration is kept)",
      { detail: `recording the client's use failed: ${String(error)}`, cause: error },
    );
  }
}

function idTokenBearer(client: OAuthClient): { idTokenBearer?: true } {
  return client.idTokenBearer === true ? { idTokenBearer: true } : {};
}

const supportedGrants: ReadonlySet<string> = new Set(supportedGrantTypes);

/** A refresh-token family (named `family` when its id was chosen already), only for clients registered for the refresh_token grant. */
async function issueRefresh(
  context: SignInContext,
  client: OAuthClient,
  grant: Omit<RefreshGrant, 'clientId'>,
  family?: string,
): Promise<{ token: string; family: string } | undefined> {
  if (!client.grantTypes.includes('refresh_token')) return undefined;
  return context.refreshTokens.issue({ clientId: client.clientId, ...grant }, family);
}

function signer(context: SignInContext) {
  return {
    key: context.ring.current,
    issuer: context.issuer,
    accessTokenTtlSeconds: context.accessTokenTtlSeconds,
    now: () => new Date(context.now()),
  };
}
