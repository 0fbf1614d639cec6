import { domainAllowed } from './domain-gate.ts';
import { OAuthError } from './oauth-error.ts';

/**
 * Who signed in at the upstream IdP, as the broker keeps it in codes, device
 * grants and refresh tokens (Go broker `idtoken.go` `claims`): the subject, the
 * lower-cased verified email (the identity the broker authorises), groups and
 * the hosted domain.
 */
export type SignInIdentity = {
  subject: string;
  email: string;
  groups: string[];
  hostedDomain?: string;
};

export type SignInRefusalReason = 'subject_missing' | 'email_missing' | 'email_unverified' | 'domain_not_permitted';

const descriptions: Record<SignInRefusalReason, string> = {
  subject_missing: 'identity provider sent no subject',
  email_missing: 'identity provider sent no email address',
  email_unverified: 'email address is not verified',
  domain_not_permitted: 'domain not permitted',
};

/** A sign-in the broker refuses: `access_denied` toward the client, `reason` for logs and tests. */
export class SignInRefused extends OAuthError {
  readonly reason: SignInRefusalReason;
  constructor(reason: SignInRefusalReason) {
    super('access_denied', descriptions[reason]);
    this.reason = reason;
  }
}

/**
 * Claims of a verified upstream ID token → the identity, or SignInRefused.
 * `email_verified` must be true (Go broker `oidc.go`); the `hd` gate runs here at
 * every sign-in.
 */
export function signInIdentityFromClaims(
  claims: Record<string, unknown>,
  allowDomains: readonly string[],
): SignInIdentity {
  const subject = typeof claims.sub === 'string' ? claims.sub : '';
  if (subject === '') throw new SignInRefused('subject_missing');
  const email = typeof claims.email === 'string' ? claims.email.trim().toLowerCase() : '';
  if (email === '') throw new SignInRefused('email_missing');
  if (claims.email_verified !== true && claims.email_verified !== 'true') throw new SignInRefused('email_unverified');
  const hostedDomain =
    typeof claims.hd === 'string' && claims.hd.trim() !== '' ? claims.hd.trim().toLowerCase() : undefined;
  if (!domainAllowed(allowDomains, hostedDomain)) throw new SignInRefused('domain_not_permitted');
  const groups = Array.isArray(claims.groups)
    ? claims.groups.filter((g): g is string => typeof g === 'string' && g !== '')
    : [];
  return { subject, email, groups, ...(hostedDomain === undefined ? {} : { hostedDomain }) };
}

/** The refresh-time re-check (the Go broker skips it; we do not): the domain list may have changed since sign-in. */
export function assertStillAllowed(identity: SignInIdentity, allowDomains: readonly string[]): void {
  if (!domainAllowed(allowDomains, identity.hostedDomain)) throw new SignInRefused('domain_not_permitted');
}
