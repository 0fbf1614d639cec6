/**
 * Why a bearer token was refused at the gateway. `error` is the RFC 6750 §3.1
 * code that goes on the wire; `description` is the public text for the
 * challenge and body; `message` is the private detail for logs only (it may
 * name the failing claim, never the token).
 */
import { CodedError } from '../../errors/coded-error.ts';
export type BearerErrorCode =
  | 'ERR_BEARER_MISSING'
  | 'ERR_BEARER_MALFORMED'
  | 'ERR_BEARER_INVALID'
  | 'ERR_BEARER_EXPIRED'
  | 'ERR_BEARER_EMAIL_MISSING'
  | 'ERR_BEARER_EMAIL_UNVERIFIED'
  | 'ERR_BEARER_DOMAIN'
  /** The token is valid but lacks a scope the call needs (403; the challenge names the scopes). */
  | 'ERR_BEARER_SCOPE';

type Wire = {
  error: 'invalid_request' | 'invalid_token' | 'insufficient_scope';
  status: 400 | 401 | 403;
  description: string;
};

// RFC 6750 §3.1: invalid_request → 400, invalid_token → 401. A request without
// any bearer credential still gets 401, so that MCP clients start discovery
// from the challenge (MCP authorization, "Authorization Server Discovery").
const wireByCode: Record<BearerErrorCode, Wire> = {
  ERR_BEARER_MISSING: { error: 'invalid_request', status: 401, description: 'Authorization: Bearer <token> required' },
  ERR_BEARER_MALFORMED: { error: 'invalid_request', status: 400, description: 'malformed Authorization header' },
  ERR_BEARER_INVALID: { error: 'invalid_token', status: 401, description: 'invalid bearer token' },
  ERR_BEARER_EXPIRED: { error: 'invalid_token', status: 401, description: 'bearer token expired' },
  ERR_BEARER_EMAIL_MISSING: { error: 'invalid_token', status: 401, description: 'email claim missing' },
  ERR_BEARER_EMAIL_UNVERIFIED: { error: 'invalid_token', status: 401, description: 'email not verified' },
  // As the later Go brokers (`tools/internal/broker`): a domain refusal reads as an invalid token (it says nothing about the allowlist).
  ERR_BEARER_DOMAIN: { error: 'invalid_token', status: 401, description: 'invalid bearer token' },
  // RFC 6750 §3.1 and MCP authorization "Scope Challenge Handling": 403, so the client can step up.
  ERR_BEARER_SCOPE: {
    error: 'insufficient_scope',
    status: 403,
    description: 'the token lacks a scope this call needs; sign in again asking for it',
  },
};

export class BearerError extends CodedError<BearerErrorCode> {
  readonly error: Wire['error'];
  readonly status: Wire['status'];
  readonly description: string;

  constructor(code: BearerErrorCode, detail: string, options?: { cause?: unknown }) {
    super(code, detail, options);
    const wire = wireByCode[code];
    this.error = wire.error;
    this.status = wire.status;
    this.description = wire.description;
  }
}
