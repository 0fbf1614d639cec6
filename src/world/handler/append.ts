import type { Metadata } from '../../protocol/metadata.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import { formatRfc3339 } from '../../protocol/time.ts';
import { extractPublisherMeta, isStoreError, validateMeta } from '../store/index.ts';
import type { RequestScope, WorldContext } from './context.ts';
import { conflictResponse } from './conflict.ts';
import { parseExpectedVersion } from './expected-version.ts';
import { storeFailure } from './store-errors.ts';
import { checkDocumentContract, guardWrite } from './write-guard.ts';
import { badRequest, created, serverError } from './respond.ts';

/**
 * APPEND (Mark SPEC §6.6): adds to the current body under a required
 * `expected-version`, because an append must never be applied twice.
 */
export async function handleAppend(ctx: WorldContext, scope: RequestScope): Promise<MarkResponse> {
  const refused = guardWrite(ctx, scope, 'appending') ?? checkDocumentContract(scope);
  if (refused) return refused;
  const { path, request } = scope;
  if (request.body.length === 0) return serverError('append requires a body');
  let metadata: Metadata;
  try {
    metadata = extractPublisherMeta(request.metadata);
    validateMeta(metadata);
  } catch (error) {
    if (isStoreError(error)) return badRequest(error.message);
    throw error;
  }
  // Go's handleAppend: unlike PUBLISH the check is required, and 0 (create-only) is refused.
  const expected = parseExpectedVersion(request.metadata['expected-version'], 1);
  if (expected === null) return badRequest('APPEND requires expected-version metadata');
  if (expected === 'invalid') return badRequest('invalid expected-version for APPEND (must be >= 1)');
  try {
    const outcome = await ctx.store.append(path, request.body, metadata, { expectedVersion: expected });
    return created({ version: String(outcome.version.version), modified: formatRfc3339(outcome.version.modified) });
  } catch (error) {
    if (isStoreError(error, 'ERR_CONFLICT')) return conflictResponse('append', expected, error.serverVersion ?? 0);
    return storeFailure(ctx, path, error);
  }
}
