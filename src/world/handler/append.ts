import type { Metadata } from '../../protocol/metadata.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import { formatRfc3339 } from '../../protocol/time.ts';
import { extractPublisherMeta, isStoreError, validateMeta } from '../store/index.ts';
import type { RequestScope, WorldContext } from './context.ts';
import { goAtoi, maxSafeVersion } from '../go-atoi.ts';
import { conflictResponse } from './conflict.ts';
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
  // Go's handleAppend: "" is absent, then strconv.Atoi and at least 1.
  const expectedText = request.metadata['expected-version'];
  if (expectedText === undefined || expectedText === '') return badRequest('APPEND requires expected-version metadata');
  const parsed = goAtoi(expectedText);
  if (parsed === undefined || parsed < 1n || parsed > maxSafeVersion)
    return badRequest('invalid expected-version for APPEND (must be >= 1)');
  const expected = Number(parsed);
  try {
    const outcome = await ctx.store.append(path, request.body, metadata, { expectedVersion: expected });
    return created({ version: String(outcome.version.version), modified: formatRfc3339(outcome.version.modified) });
  } catch (error) {
    if (isStoreError(error, 'ERR_CONFLICT')) return conflictResponse('append', expected, error.serverVersion ?? 0);
    return storeFailure(ctx, path, error);
  }
}
