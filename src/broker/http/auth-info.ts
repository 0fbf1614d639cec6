import type { AuthInfo } from '@modelcontextprotocol/server';
import type { Identity } from '../identity.ts';

/**
 * The verified caller travels to tool handlers through the SDK's pass-through
 * `authInfo`. The token itself is NOT carried (MCP authorization, "Token
 * Passthrough" is forbidden): tools and worlds only ever see the identity.
 */
const identityKey = 'demarkus.identity';
const noToken = '';

export function authInfoFor(identity: Identity): AuthInfo {
  return { token: noToken, clientId: identity.subject, scopes: [], extra: { [identityKey]: identity } };
}

export function identityFromAuthInfo(authInfo: AuthInfo | undefined): Identity {
  const identity = authInfo?.extra?.[identityKey];
  if (!isIdentity(identity)) throw new Error('MCP request reached a handler without a verified identity');
  return identity;
}

function isIdentity(value: unknown): value is Identity {
  if (typeof value !== 'object' || value === null) return false;
  const candidate = value as Partial<Identity>;
  return (
    typeof candidate.subject === 'string' && typeof candidate.email === 'string' && Array.isArray(candidate.groups)
  );
}
