import type { Metadata } from '../../protocol/metadata.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import { formatRfc3339 } from '../../protocol/time.ts';
import { applyOkfTypeDefault, extractPublisherMeta, isStoreError, validateMeta } from '../store/index.ts';
import type { RequestScope, WorldContext } from './context.ts';
import { conflictResponse } from './conflict.ts';
import { parseExpectedVersion } from './expected-version.ts';
import { storeFailure } from './store-errors.ts';
import { checkDocumentContract, guardWrite } from './write-guard.ts';
import { badRequest, created, notFound, ok } from './respond.ts';

/**
 * PUBLISH (Mark SPEC §6.4). An empty body unarchives; otherwise the store writes
 * version N+1, or answers `ok` without a new version when body and metadata are
 * unchanged.
 */
export async function handlePublish(ctx: WorldContext, scope: RequestScope): Promise<MarkResponse> {
  const refused = guardWrite(ctx, scope, 'publishing') ?? checkDocumentContract(scope);
  if (refused) return refused;
  const { path, request } = scope;
  if (request.body.length === 0) return unarchive(ctx, path);
  let metadata: Metadata;
  try {
    metadata = applyOkfTypeDefault(path, extractPublisherMeta(request.metadata));
    validateMeta(metadata);
  } catch (error) {
    if (isStoreError(error)) return badRequest(error.message);
    throw error;
  }
  const expected = parseExpectedVersion(request.metadata['expected-version'], 0);
  if (expected === 'invalid') return badRequest('invalid expected-version');
  try {
    const outcome = await ctx.store.publish(
      path,
      request.body,
      metadata,
      expected === null ? {} : { expectedVersion: expected },
    );
    const meta = { version: String(outcome.version.version), modified: formatRfc3339(outcome.version.modified) };
    if (outcome.kind === 'created' && outcome.prune !== undefined) {
      ctx.log.info(
        {
          prune: true,
          path,
          pruned_from: outcome.prune.from,
          pruned_to: outcome.prune.to,
          token_label: scope.tokens?.labelOf(scope.token),
        },
        'retention prune',
      );
    }
    return outcome.kind === 'created' ? created(meta) : ok(meta);
  } catch (error) {
    if (isStoreError(error, 'ERR_CONFLICT') && expected !== null)
      return conflictResponse('publish', expected, error.serverVersion ?? 0);
    return storeFailure(ctx, path, error);
  }
}

async function unarchive(ctx: WorldContext, path: string): Promise<MarkResponse> {
  try {
    const outcome = await ctx.store.unarchive(path);
    return ok({ version: String(outcome.version) });
  } catch (error) {
    if (isStoreError(error, 'ERR_NOT_FOUND')) return notFound(`${path} not found`);
    return storeFailure(ctx, path, error);
  }
}
