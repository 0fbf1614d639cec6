/**
 * The `oidc.allowDomains` gate (Go broker `oidcDomainAllowed`): an empty list lets everyone
 * in; otherwise the IdP's hosted-domain claim `hd` must be listed. It is the
 * `hd` claim and not the email's domain, which a user may choose at some IdPs.
 * Applied at every sign-in, on every refresh and on every bearer token.
 */
export function domainAllowed(allowDomains: readonly string[], hostedDomain: string | undefined): boolean {
  if (allowDomains.length === 0) return true;
  const hd = hostedDomain?.trim().toLowerCase() ?? '';
  return hd !== '' && allowDomains.includes(hd);
}
