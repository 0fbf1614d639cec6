/**
 * The token endpoint's success body (RFC 6749 §5.1): a broker access token for
 * the MCP resource (RFC 8707 audience), a fresh or rotated refresh token, and
 * an ID token when `openid` was granted or the client presents ID tokens as
 * its bearer (a web client configured with `bearer: id_token`, whose code and
 * refresh responses must both carry one).
 */
import { mintBrokerToken } from '../mint-broker-token.ts';
import type { SigningKey } from '../signing-key.ts';
import type { SignInIdentity } from '../sign-in-identity.ts';
import { mintIdToken } from './id-token.ts';
import { wantsIdToken } from './scope.ts';

export type TokenResponse = {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token?: string;
  scope: string;
  id_token?: string;
};

export type TokenSigner = { key: SigningKey; issuer: string; accessTokenTtlSeconds: number; now?: () => Date };

export async function tokenResponse(
  signer: TokenSigner,
  grant: {
    clientId: string;
    identity: SignInIdentity;
    scope: string;
    resource: string;
    /** Absent for a client not registered for the refresh_token grant. */
    refreshToken?: string;
    nonce?: string;
    authTime?: number;
    idTokenBearer?: boolean;
  },
): Promise<TokenResponse> {
  const { identity } = grant;
  const access = await mintBrokerToken({
    key: signer.key,
    issuer: signer.issuer,
    audience: grant.resource,
    email: identity.email,
    subject: identity.subject,
    groups: identity.groups,
    ...(identity.hostedDomain === undefined ? {} : { hostedDomain: identity.hostedDomain }),
    clientId: grant.clientId,
    scope: grant.scope,
    ttlSeconds: signer.accessTokenTtlSeconds,
    ...(signer.now ? { now: signer.now } : {}),
  });
  const response: TokenResponse = {
    access_token: access,
    token_type: 'Bearer',
    expires_in: signer.accessTokenTtlSeconds,
    ...(grant.refreshToken === undefined ? {} : { refresh_token: grant.refreshToken }),
    scope: grant.scope,
  };
  if (grant.idTokenBearer === true || wantsIdToken(grant.scope)) {
    response.id_token = await mintIdToken({
      key: signer.key,
      issuer: signer.issuer,
      clientId: grant.clientId,
      identity,
      ttlSeconds: signer.accessTokenTtlSeconds,
      ...(grant.nonce === undefined ? {} : { nonce: grant.nonce }),
      ...(grant.authTime === undefined ? {} : { authTime: grant.authTime }),
      ...(grant.idTokenBearer === true ? { bearerFor: { scope: grant.scope } } : {}),
      ...(signer.now ? { now: signer.now } : {}),
    });
  }
  return response;
}
