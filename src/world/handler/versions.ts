import { isHashPath } from '../../protocol/paths.ts';
import { renderVersions } from '../../protocol/render/versions.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import type { RequestScope, WorldContext } from './context.ts';
import { checkRead } from './read-auth.ts';
import { notFound, ok } from './respond.ts';

/** VERSIONS (Mark SPEC §6.3): retained versions newest first, with the chain verdict. No archived check. */
export async function handleVersions(ctx: WorldContext, scope: RequestScope): Promise<MarkResponse> {
  const { path } = scope;
  const denied = checkRead(scope.tokens, scope.token, path);
  if (denied) return denied;
  if (isHashPath(path)) return notFound(`${path} not found`);
  const history = await ctx.store.history(path, { signal: scope.signal });
  if (history === null || history.versions.length === 0) return notFound(`${path} not found`);
  const current = Math.max(...history.versions.map((v) => v.version));
  const metadata: Record<string, string> = {
    total: String(history.versions.length),
    current: String(current),
    'chain-valid': String(history.chainValid),
  };
  if (!history.chainValid) {
    metadata['chain-error'] = 'chain integrity check failed';
    ctx.log.warn({ path, detail: history.chainError }, 'version chain integrity check failed');
  }
  return ok(metadata, renderVersions(path, history.versions));
}
