/**
 * Scopes the broker grants. `mark.read` allows the read tools, resources and
 * prompts, `mark.write` the write tools (enforced per call by
 * `src/broker/http/scope-hook.ts`, on top of identity and world allowlists);
 * unknown requested scopes are dropped rather than refused (RFC 6749 §3.3 lets
 * the server grant less), and `openid` asks for an ID token.
 */
export const readScope = 'mark.read';
export const writeScope = 'mark.write';
export const resourceScopes: readonly string[] = [readScope, writeScope];
export const identityScopes: readonly string[] = ['openid', 'email', 'profile'];
export const supportedScopes: readonly string[] = [...identityScopes, ...resourceScopes, 'offline_access'];

export function grantedScope(requested: string | undefined): string {
  const asked = (requested ?? '').split(' ').filter((s) => s !== '');
  const known = [...new Set(asked.filter((s) => supportedScopes.includes(s)))];
  const withResource = known.some((s) => resourceScopes.includes(s)) ? known : [...known, ...resourceScopes];
  return withResource.join(' ');
}

export function wantsIdToken(scope: string): boolean {
  return scope.split(' ').includes('openid');
}

/** What each scope lets a client do, as the consent and device pages say it. */
const scopeSentences: Record<string, string> = {
  [readScope]: 'read the documents you may read, in every world',
  [writeScope]: 'publish and change documents in the worlds where you may write',
  openid: 'know that it is you who signed in',
  email: 'see your email address',
  profile: 'see your name',
  offline_access: 'stay signed in after this browser is closed',
};

/** What `scope` grants (grantedScope) in plain words, the access to documents first. */
export function describeScopes(scope: string): string[] {
  const granted = new Set(grantedScope(scope).split(' '));
  return [...resourceScopes, ...identityScopes, 'offline_access']
    .filter((s) => granted.has(s))
    .map((s) => scopeSentences[s]!);
}
