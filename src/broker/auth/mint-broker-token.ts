import { SignJWT } from 'jose';
import type { SigningKey } from './signing-key.ts';
import { resourceScopes } from './tokens/scope.ts';

/** Default lifetime of a broker token: the Go broker's `server.idTokenTTL` (Go broker `config.go`). */
export const defaultBrokerTokenTtlSeconds = 15 * 60;

export type MintBrokerTokenOptions = {
  key: SigningKey;
  /** `iss`: the broker's public issuer URL. */
  issuer: string;
  /** `aud`: the resource(s) the token is for, normally the MCP resource URL (RFC 8707). */
  audience: string | readonly string[];
  email: string;
  /** `sub`; defaults to the canonical email (development tokens have no IdP subject). */
  subject?: string;
  groups?: readonly string[];
  hostedDomain?: string;
  ttlSeconds?: number;
  /** RFC 9068 §2.2: the OAuth client the token was issued to (sign-in flows). */
  clientId?: string;
  /**
   * RFC 9068 §2.2.3: the granted scope, space-separated, enforced per call at
   * the gateway. Default `mark.read mark.write` (development tokens).
   */
  scope?: string;
  now?: () => Date;
};

/**
 * Signs a broker token: ES256, header `typ: JWT` and `kid`, claims as in
 * Go broker `idtoken.go` (`iss`, `aud`, `sub`, `iat`, `exp`, `email`,
 * `email_verified`, `groups` and `hd` when present). Used by the sign-in flows
 * and by `demarkus-broker token --email` for development.
 */
export async function mintBrokerToken(options: MintBrokerTokenOptions): Promise<string> {
  const email = options.email.trim().toLowerCase();
  if (email === '') throw new RangeError('mintBrokerToken: email is required');
  const ttlSeconds = options.ttlSeconds ?? defaultBrokerTokenTtlSeconds;
  if (!Number.isInteger(ttlSeconds) || ttlSeconds <= 0)
    throw new RangeError(`mintBrokerToken: ttlSeconds must be a positive integer, got ${ttlSeconds}`);
  const issuedAt = Math.floor((options.now?.() ?? new Date()).getTime() / 1000);
  const claims: Record<string, unknown> = { email, email_verified: true };
  if (options.groups !== undefined && options.groups.length > 0) claims.groups = [...options.groups];
  if (options.hostedDomain !== undefined && options.hostedDomain !== '') claims.hd = options.hostedDomain;
  if (options.clientId !== undefined) claims.client_id = options.clientId;
  const scope = options.scope ?? resourceScopes.join(' ');
  if (scope !== '') claims.scope = scope;
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'ES256', typ: 'JWT', kid: options.key.kid })
    .setIssuer(options.issuer)
    .setAudience(typeof options.audience === 'string' ? options.audience : [...options.audience])
    .setSubject(options.subject ?? email)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ttlSeconds)
    .sign(options.key.privateKey);
}
