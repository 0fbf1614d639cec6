/**
 * Refusals of the document store, as stable codes the handler maps to statuses
 * without knowing the backend (the Go `backend` sentinels and `storefmt` errors).
 *
 * | code                  | Go sentinel                     | handler answer                 |
 * |-----------------------|---------------------------------|--------------------------------|
 * | ERR_NOT_FOUND         | ErrNotFound / os.ErrNotExist    | not-found                      |
 * | ERR_CONFLICT          | storefmt.ErrConflict            | conflict (+ serverVersion)     |
 * | ERR_ARCHIVED          | storefmt.ErrArchived            | archived                       |
 * | ERR_COLLISION         | storefmt.ErrPathCollision       | bad-request, message as is     |
 * | ERR_TOO_LARGE         | storefmt.ErrSizeLimit           | server-error                   |
 * | ERR_INVALID_METADATA  | storefmt.ErrInvalidMeta         | bad-request, message as is     |
 * | ERR_INVALID_CONTENT   | storefmt.ErrInvalidContent      | bad-request, message as is     |
 * | ERR_READ_ONLY         | backend.ErrReadOnly             | not-permitted                  |
 * | ERR_QUOTA             | backend.ErrQuota                | not-permitted, message as is   |
 * | ERR_REJECTED          | backend.ErrRejected             | bad-request, message as is     |
 * | ERR_INTEGRITY         | storefmt.ErrIntegrity           | server-error (or chain-valid)  |
 */
import { CodedError } from '../../errors/coded-error.ts';
export type StoreErrorCode =
  | 'ERR_NOT_FOUND'
  | 'ERR_CONFLICT'
  | 'ERR_ARCHIVED'
  | 'ERR_COLLISION'
  | 'ERR_TOO_LARGE'
  | 'ERR_INVALID_METADATA'
  | 'ERR_INVALID_CONTENT'
  | 'ERR_READ_ONLY'
  | 'ERR_QUOTA'
  | 'ERR_REJECTED'
  | 'ERR_INTEGRITY';

export class StoreError extends CodedError<StoreErrorCode> {
  /** On ERR_CONFLICT: the document's current version (0 when it does not exist). */
  readonly serverVersion: number | undefined;

  constructor(code: StoreErrorCode, message: string, options?: { serverVersion?: number; cause?: unknown }) {
    super(code, message, options);
    this.serverVersion = options?.serverVersion;
  }
}

export function isStoreError(err: unknown, code?: StoreErrorCode): err is StoreError {
  return err instanceof StoreError && (code === undefined || err.code === code);
}

/** `storefmt.ErrSizeLimit`'s text. */
export const sizeLimitMessage = 'combined content exceeds size limit';

export function notFound(path: string): StoreError {
  return new StoreError('ERR_NOT_FOUND', `${path} not found`);
}

export function conflict(serverVersion: number): StoreError {
  return new StoreError('ERR_CONFLICT', 'version conflict', { serverVersion });
}

export function integrity(detail: string, cause?: unknown): StoreError {
  return new StoreError('ERR_INTEGRITY', `stored version integrity failure: ${detail}`, { cause });
}

/** Node's file-system error codes, read without trusting the shape of `err`. */
export function fsCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  const code = (err as { code: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * ENOENT, ENOTDIR and ENAMETOOLONG all mean "nothing there" for a path lookup: a name longer than the
 * filesystem holds (a segment over NAME_MAX, or the whole path over PATH_MAX) cannot exist, and is
 * the caller's input, not a failure of the world (writes refuse it first, write-guard.ts).
 */
export function isMissing(err: unknown): boolean {
  const code = fsCode(err);
  return code === 'ENOENT' || code === 'ENOTDIR' || code === 'ENAMETOOLONG';
}
