/**
 * Errors of the broker's authorization server, one class with the wire code
 * of the RFC that defines it (RFC 6749 §5.2 and §4.1.2.1, RFC 8628 §3.5,
 * RFC 7591 §3.2.2, RFC 8707 §2, RFC 7009 §2.2.1). `description` is the public
 * `error_description`; `message` is the private detail for logs.
 */
import { CodedError } from '../../errors/coded-error.ts';
import { isStateUnavailable, isTransientStateStoreError } from '../state/index.ts';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'access_denied'
  | 'authorization_pending'
  | 'slow_down'
  | 'expired_token'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'server_error'
  | 'temporarily_unavailable';

/** The HTTP status of each `error` value (docs/errors.md lists them). */
export const oauthErrorStatus: Readonly<Record<OAuthErrorCode, number>> = {
  invalid_request: 400,
  // RFC 6749 §5.2: 401 when the client tried to authenticate (with a challenge), else 400; we always answer 401.
  invalid_client: 401,
  invalid_grant: 400,
  unauthorized_client: 400,
  unsupported_grant_type: 400,
  unsupported_response_type: 400,
  invalid_scope: 400,
  invalid_target: 400,
  access_denied: 400,
  authorization_pending: 400,
  slow_down: 400,
  expired_token: 400,
  invalid_redirect_uri: 400,
  invalid_client_metadata: 400,
  server_error: 500,
  temporarily_unavailable: 503,
};

/** Stable code for logs and `switch`: `ERR_OAUTH_<ERROR>`. */
export type OAuthErrorStableCode = `ERR_OAUTH_${Uppercase<OAuthErrorCode>}`;

export class OAuthError extends CodedError<OAuthErrorStableCode> {
  readonly error: OAuthErrorCode;
  readonly status: number;
  readonly description: string;

  /** RFC 9110 §10.2.3 `Retry-After` in seconds, for `temporarily_unavailable`. */
  readonly retryAfterSeconds: number | undefined;

  constructor(
    error: OAuthErrorCode,
    description: string,
    options?: { detail?: string; cause?: unknown; retryAfterSeconds?: number },
  ) {
    super(`ERR_OAUTH_${error.toUpperCase() as Uppercase<OAuthErrorCode>}`, options?.detail ?? description, options);
    this.retryAfterSeconds = options?.retryAfterSeconds;
    this.error = error;
    this.status = oauthErrorStatus[error];
    this.description = description;
  }

  /** RFC 6749 §5.2 body; a server_error never carries internal text. */
  toResponseObject(): { error: OAuthErrorCode; error_description: string } {
    return {
      error: this.error,
      error_description: this.error === 'server_error' ? 'internal error' : this.description,
    };
  }
}

/** How long a client waits before retrying a step the durable state could not take (a conflict passes in moments). */
const durableStateRetryAfterSeconds = 2;

/** Anything thrown below the routes becomes an OAuthError here, keeping `cause`. */
export function asOAuthError(error: unknown): OAuthError {
  if (error instanceof OAuthError) return error;
  // The shared sign-in state (Redis) is unreachable: RFC 6749 §4.1.2.1 `temporarily_unavailable`, retry later.
  if (isStateUnavailable(error))
    return new OAuthError(
      'temporarily_unavailable',
      'the sign-in service cannot reach its shared state; try again in a few seconds',
      { detail: error.message, cause: error, retryAfterSeconds: error.retryAfterSeconds },
    );
  // The durable state (a Kubernetes Secret) lost every optimistic retry to other writers, or its backend did not
  // answer: nothing was changed, and the same request may pass in a moment, so the client is told to retry.
  if (isTransientStateStoreError(error))
    return new OAuthError(
      'temporarily_unavailable',
      error.failure === 'conflict'
        ? 'the sign-in service could not save its state because other requests changed it at the same moment; try again in a few seconds'
        : 'the sign-in service could not reach its durable state store; try again in a few seconds',
      { detail: error.message, cause: error, retryAfterSeconds: durableStateRetryAfterSeconds },
    );
  return new OAuthError('server_error', 'internal error', {
    detail: error instanceof Error ? error.message : String(error),
    cause: error,
  });
}
