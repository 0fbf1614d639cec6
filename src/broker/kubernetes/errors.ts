/**
 * Failures of the Kubernetes backends. Codes never change once shipped; the
 * message names the object (`namespace/name`) and the problem, never Secret
 * data, and the client library's own error is kept as `cause` only (its text
 * carries response headers and bodies, which must not reach logs verbatim).
 */
import { CodedError } from '../../errors/coded-error.ts';

export type KubernetesBackendErrorCode =
  /** Optimistic concurrency kept losing: another writer updated the object between our read and write. */
  | 'ERR_K8S_CONFLICT'
  /** An object the broker only updates (a world's tokens Secret) does not exist. */
  | 'ERR_K8S_NOT_FOUND'
  /** The API server refused or failed the call (403, 5xx, transport). */
  | 'ERR_K8S_API';

export class KubernetesBackendError extends CodedError<KubernetesBackendErrorCode> {
  /** `namespace/name` of the object involved. */
  readonly object: string;
  /** HTTP status of the last API answer, when there was one. */
  readonly status: number | undefined;

  constructor(
    code: KubernetesBackendErrorCode,
    object: string,
    message: string,
    options?: { status?: number; cause?: unknown },
  ) {
    super(code, message, options);
    this.object = object;
    this.status = options?.status;
  }
}

/**
 * The HTTP status of a client-node `ApiException` (or a watch error), if any.
 * Only an HTTP status counts: an aborted call's DOMException also has a
 * numeric `code` (20 AbortError, 23 TimeoutError), which is no answer at all.
 */
export function apiStatus(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code, statusCode } = error as { code?: unknown; statusCode?: unknown };
  const isHttpStatus = (value: unknown): value is number =>
    typeof value === 'number' && Number.isInteger(value) && value >= 100 && value <= 599;
  if (isHttpStatus(code)) return code;
  if (isHttpStatus(statusCode)) return statusCode;
  return undefined;
}

/** Wrap a failed call as ERR_K8S_API without copying the library's message (it embeds bodies and headers). */
export function apiFailure(object: string, action: string, error: unknown): KubernetesBackendError {
  const status = apiStatus(error);
  const reason = status === undefined ? 'no answer from the API server' : `HTTP ${status}`;
  return new KubernetesBackendError('ERR_K8S_API', object, `kubernetes: ${action} ${object}: ${reason}`, {
    ...(status === undefined ? {} : { status }),
    cause: error,
  });
}
