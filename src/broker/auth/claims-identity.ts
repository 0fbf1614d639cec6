import type { JWTPayload } from 'jose';
import type { Identity } from '../identity.ts';
import { BearerError } from './bearer-error.ts';
import { resourceScopes } from './tokens/scope.ts';

/**
 * The caller's identity from verified claims. The broker authorises by email,
 * so (as the Go broker's `oidc.go`) an empty canonical email or an unverified one is refused
 * at the gateway rather than later at a world.
 */
export function identityFromClaims(claims: JWTPayload, issuedBy: Identity['issuedBy']): Identity {
  const subject = typeof claims.sub === 'string' ? claims.sub : '';
  if (subject === '') throw new BearerError('ERR_BEARER_INVALID', 'token has no sub claim');
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (email === '') throw new BearerError('ERR_BEARER_EMAIL_MISSING', 'token has no usable email claim');
  // Some IdPs send the boolean as a string; anything else is "not verified".
  const verified = claims.email_verified === true || claims.email_verified === 'true';
  if (!verified) throw new BearerError('ERR_BEARER_EMAIL_UNVERIFIED', 'email_verified is not true');
  const identity: Identity = {
    subject,
    email,
    emailVerified: true,
    groups: groupsOf(claims.groups),
    scopes: scopesOf(claims, issuedBy),
    issuedBy,
  };
  if (typeof claims.hd === 'string' && claims.hd !== '') identity.hostedDomain = claims.hd.toLowerCase();
  return identity;
}

/**
 * A broker token grants exactly its `scope` claim (RFC 9068 §2.2.3); without
 * one it grants nothing. An upstream ID token is the person's own sign-in at
 * the organisation's IdP (the Go broker's compatibility path) and carries no
 * OAuth scope: it grants what the person may do, both resource scopes.
 */
function scopesOf(claims: JWTPayload, issuedBy: Identity['issuedBy']): readonly string[] {
  if (issuedBy === 'upstream') return resourceScopes;
  return typeof claims.scope === 'string' ? claims.scope.split(' ').filter((s) => s !== '') : [];
}

function groupsOf(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter((g): g is string => typeof g === 'string' && g !== '').map((g) => g.toLowerCase());
}
