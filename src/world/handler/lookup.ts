import { renderLookup, type LookupRow } from '../../protocol/render/lookup.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import { FilterError, parseFilter, type Predicate } from '../catalog/index.ts';
import type { RequestScope, WorldContext } from './context.ts';
import { parseLookupOptions, type LookupOptions } from './lookup-options.ts';
import { canRead, checkRead } from './read-auth.ts';
import { badRequest, notFound, ok } from './respond.ts';

/**
 * LOOKUP (Mark SPEC §6.7). Rows a caller may not read are removed before the
 * limit, so hidden documents neither show (no path, no title, no count) nor
 * displace visible ones. A scope below `/` is read-checked like a LIST of it.
 */
export async function handleLookup(ctx: WorldContext, scope: RequestScope): Promise<MarkResponse> {
  const options = parseLookupOptions(scope.request.metadata);
  if (typeof options === 'string') return badRequest(options);
  let filter: Predicate[];
  try {
    filter = parseFilter(options.filterText);
  } catch (error) {
    if (error instanceof FilterError) return badRequest(error.message);
    throw error;
  }
  if (scope.path !== '/') {
    // Read-auth on the scope first, as LIST does: inside a protected tree an
    // existing and a missing folder get the same denial, so names cannot be probed.
    const denied = checkRead(scope.tokens, scope.token, scope.path);
    if (denied) return denied;
    if (!(await ctx.store.isDirectory(scope.path))) return notFound(`${scope.path} not found`);
  }
  const allow = (path: string) => canRead(scope.tokens, scope.token, path);
  const mode = options.mode === 'body' && ctx.bodyIndex !== null ? 'body' : 'catalog';
  // Body mode also answers our optional extension keys (src/search/lookup-extension.ts).
  // A body search runs in slices and stops once the request's signal aborts (src/world/body-index.ts).
  const answer =
    mode === 'body'
      ? await ctx.bodyIndex!.lookup(options.text, scope.request.metadata, {
          scope: scope.path,
          filter,
          allow,
          limit: options.limit,
          signal: scope.signal,
        })
      : { rows: catalogRows(ctx, options, scope.path, filter, allow), metadata: {} };
  if (typeof answer === 'string') return badRequest(answer);
  const metadata: Record<string, string> = { ...answer.metadata, matches: String(answer.rows.length) };
  if (options.echoMatch) metadata.match = mode;
  return ok(metadata, renderLookup(options.text, scope.path, mode, answer.rows));
}

function catalogRows(
  ctx: WorldContext,
  options: LookupOptions,
  scopePath: string,
  filter: ReturnType<typeof parseFilter>,
  allow: (path: string) => boolean,
): LookupRow[] {
  const entries = ctx.catalog.lookup({
    terms: options.terms,
    matchAll: options.matchAll,
    scope: scopePath,
    filter,
    allow,
    limit: options.limit,
  });
  return entries.map((entry) => ({
    path: entry.path,
    importance: entry.importance,
    title: entry.title,
    tags: entry.tags,
  }));
}
