import { errorResponse, type MarkResponse } from '../../protocol/response.ts';
import { Status } from '../../protocol/status.ts';
import type { AuthOutcome, TokenSnapshot } from '../auth/index.ts';

/**
 * Maps an authorization outcome to the wire (handler.writeAuthDenied): no token,
 * an unknown token and an expired token are `unauthorized`; a token that lacks
 * the operation or the path is `not-permitted`.
 */
export function deniedResponse(outcome: Exclude<AuthOutcome, 'ok'>): MarkResponse {
  if (outcome === 'not-permitted') return errorResponse(Status.NotPermitted, 'insufficient permissions');
  return errorResponse(Status.Unauthorized, 'authentication required');
}

/** Read-auth for one path: null when allowed, the denial otherwise. No token store means public. */
export function checkRead(tokens: TokenSnapshot | null, token: string | undefined, path: string): MarkResponse | null {
  if (tokens === null) return null;
  const outcome = tokens.authorizeRead(token, path);
  return outcome === 'ok' ? null : deniedResponse(outcome);
}

/** True when a caller may see `path` (for rows and entries, where a denial hides instead of failing). */
export function canRead(tokens: TokenSnapshot | null, token: string | undefined, path: string): boolean {
  return tokens === null || tokens.authorizeRead(token, path) === 'ok';
}
