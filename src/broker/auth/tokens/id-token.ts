import { SignJWT } from 'jose';
import type { SigningKey } from '../signing-key.ts';
import type { SignInIdentity } from '../sign-in-identity.ts';

export type IdTokenOptions = {
  key: SigningKey;
  issuer: string;
  /** OIDC Core §2: the ID token's audience is the client. */
  clientId: string;
  identity: SignInIdentity;
  /** Echoed from the authorization request (OIDC Core §3.1.2.1). */
  nonce?: string;
  /** When the user signed in at the IdP, seconds. */
  authTime?: number;
  ttlSeconds: number;
  now?: () => Date;
  /**
   * For a client that presents its ID token as the `/mcp` bearer: `azp`
   * (OIDC Core §2) names the client the gateway accepts it for, and `scope`
   * carries the grant as an access token would (RFC 9068 §2.2.3).
   */
  bearerFor?: { scope: string };
};

/** An OpenID Connect ID token for clients that asked for `openid`: ES256, `kid` of the signing key. */
export async function mintIdToken(options: IdTokenOptions): Promise<string> {
  const issuedAt = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  const { identity } = options;
  const claims: Record<string, unknown> = { email: identity.email, email_verified: true };
  if (identity.groups.length > 0) claims.groups = identity.groups;
  if (identity.hostedDomain !== undefined) claims.hd = identity.hostedDomain;
  if (options.nonce !== undefined) claims.nonce = options.nonce;
  if (options.authTime !== undefined) claims.auth_time = options.authTime;
  if (options.bearerFor !== undefined) {
    claims.azp = options.clientId;
    if (options.bearerFor.scope !== '') claims.scope = options.bearerFor.scope;
  }
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: options.key.kid })
    .setIssuer(options.issuer)
    .setAudience(options.clientId)
    .setSubject(identity.subject)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + options.ttlSeconds)
    .sign(options.key.privateKey);
}
