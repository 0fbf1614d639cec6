import { errorResponse, type MarkResponse } from '../../protocol/response.ts';
import { Status } from '../../protocol/status.ts';
import { isStoreError } from '../store/index.ts';
import type { WorldContext } from './context.ts';
import { badRequest, internalError, notFound, notPermitted, serverError } from './respond.ts';

/**
 * Store refusals to the wire (Go `server/internal/handler/status_mapping_test.go`): collisions, invalid content
 * and policy rejections are bad-request with the store's message; quota and
 * read-only are not-permitted; anything unclassified is logged and answered
 * `internal error`, never with its detail.
 */
export function storeFailure(ctx: WorldContext, path: string, error: unknown): MarkResponse {
  if (!isStoreError(error)) {
    ctx.log.error({ path, err: describe(error) }, 'store write failed');
    return internalError();
  }
  switch (error.code) {
    case 'ERR_NOT_FOUND':
      return notFound(`${path} not found`);
    case 'ERR_ARCHIVED':
      return errorResponse(Status.Archived, 'document is archived; unarchive first');
    case 'ERR_COLLISION':
    case 'ERR_INVALID_METADATA':
    case 'ERR_INVALID_CONTENT':
    case 'ERR_REJECTED':
      return badRequest(error.message);
    case 'ERR_TOO_LARGE':
      return serverError('content exceeds size limit');
    case 'ERR_READ_ONLY':
      return notPermitted('server is read-only');
    case 'ERR_QUOTA':
      return notPermitted(error.message);
    default:
      ctx.log.error({ path, code: error.code, err: describe(error) }, 'store write failed');
      return internalError();
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
