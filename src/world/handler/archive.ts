import type { MarkResponse } from '../../protocol/response.ts';
import type { RequestScope, WorldContext } from './context.ts';
import { storeFailure } from './store-errors.ts';
import { guardWrite } from './write-guard.ts';
import { ok } from './respond.ts';

/**
 * ARCHIVE (Mark SPEC §6.5): operational state, no new version. Archiving an
 * archived document is still `ok`. Any body is ignored.
 */
export async function handleArchive(ctx: WorldContext, scope: RequestScope): Promise<MarkResponse> {
  const refused = guardWrite(ctx, scope, 'archiving');
  if (refused) return refused;
  try {
    const outcome = await ctx.store.archive(scope.path);
    return ok({ archived: 'true', version: String(outcome.version) });
  } catch (error) {
    return storeFailure(ctx, scope.path, error);
  }
}
