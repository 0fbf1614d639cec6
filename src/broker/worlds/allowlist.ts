/**
 * The writer allowlist of a world (Go broker `authz.go` `worldAllows`), plus the
 * gateway's own precondition: an identity without a verified email never
 * writes. Reads are not filtered by it (every configured world is readable).
 *
 *   all three lists empty             → allowed
 *   email ∈ emails                    → allowed
 *   domains and groups both empty     → denied
 *   otherwise: (domains empty or the part after the last `@` ∈ domains)
 *          and (groups empty or some identity group ∈ groups)
 *
 * List entries are lower-cased and trimmed at config load; identity values are
 * compared lower-cased here.
 */
import type { Identity } from '../identity.ts';

export type AllowList = {
  readonly domains: readonly string[];
  readonly groups: readonly string[];
  readonly emails: readonly string[];
};

export const openAllowList: AllowList = { domains: [], groups: [], emails: [] };

export function worldAllows(allow: AllowList, identity: Identity): boolean {
  const email = identity.email.trim().toLowerCase();
  if (!identity.emailVerified || email === '') return false;
  if (allow.domains.length === 0 && allow.groups.length === 0 && allow.emails.length === 0) return true;
  if (allow.emails.includes(email)) return true;
  if (allow.domains.length === 0 && allow.groups.length === 0) return false;
  return domainMatches(allow.domains, email) && groupsMatch(allow.groups, identity.groups);
}

function domainMatches(domains: readonly string[], email: string): boolean {
  if (domains.length === 0) return true;
  const at = email.lastIndexOf('@');
  return at >= 0 && domains.includes(email.slice(at + 1));
}

function groupsMatch(groups: readonly string[], identityGroups: readonly string[]): boolean {
  if (groups.length === 0) return true;
  return identityGroups.some((group) => groups.includes(group.toLowerCase()));
}
