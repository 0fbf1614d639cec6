/**
 * Client authentication at the token and revocation endpoints (RFC 6749
 * §2.3.1): HTTP Basic with form-urlencoded halves, or `client_id` +
 * `client_secret` in the body; never both. A confidential client must prove
 * its secret (constant-time comparison of SHA-256 hashes); a public client
 * only names itself and must not send a secret.
 */
import { OAuthError } from '../oauth-error.ts';
import { constantTimeEqual, sha256Hex } from '../secrets.ts';
import type { OAuthClient } from './client.ts';

export type ClientCredentials = { clientId: string; secret?: string; method: 'basic' | 'post' | 'none' };

export function parseClientCredentials(
  authorization: string | undefined,
  form: Readonly<Record<string, string>>,
): ClientCredentials {
  const basic = authorization === undefined ? null : parseBasic(authorization);
  const formId = form.client_id;
  const formSecret = form.client_secret;
  if (basic !== null) {
    if (formSecret !== undefined)
      throw new OAuthError('invalid_request', 'use one client authentication method, not two');
    if (formId !== undefined && formId !== basic.clientId)
      throw new OAuthError('invalid_request', 'client_id does not match the Authorization header');
    return { clientId: basic.clientId, secret: basic.secret, method: 'basic' };
  }
  if (formId === undefined || formId === '') throw new OAuthError('invalid_request', 'client_id is required');
  return formSecret === undefined
    ? { clientId: formId, method: 'none' }
    : { clientId: formId, secret: formSecret, method: 'post' };
}

function parseBasic(header: string): { clientId: string; secret: string } | null {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (match === null) {
    if (/^Basic\b/i.test(header)) throw new OAuthError('invalid_request', 'malformed Basic authorization');
    return null;
  }
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) throw new OAuthError('invalid_request', 'malformed Basic authorization');
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    throw new OAuthError('invalid_request', 'malformed Basic authorization');
  }
}

/** The client, authenticated as its registration demands, or invalid_client. */
export function authenticateClient(client: OAuthClient | null, credentials: ClientCredentials): OAuthClient {
  if (client === null)
    throw new OAuthError('invalid_client', 'client authentication failed', { detail: 'unknown client_id' });
  if (client.secretHash === undefined) {
    if (credentials.secret !== undefined)
      throw new OAuthError('invalid_client', 'client authentication failed', { detail: 'public client sent a secret' });
    return client;
  }
  const secret = credentials.secret ?? '';
  // Hash comparison in constant time; an empty secret never matches.
  if (secret === '' || !constantTimeEqual(sha256Hex(secret), client.secretHash)) {
    throw new OAuthError('invalid_client', 'client authentication failed', {
      detail: `bad secret for client ${client.clientId}`,
    });
  }
  return client;
}
