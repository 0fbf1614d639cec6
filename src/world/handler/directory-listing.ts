import { maxListPageEntries } from '../../protocol/limits.ts';
import { renderList } from '../../protocol/render/list.ts';
import { prefixedSha256, sha256Hex } from '../../protocol/token.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import type { RequestScope, WorldContext } from './context.ts';
import { readPage } from './list.ts';
import { notModified, ok } from './respond.ts';

/**
 * FETCH of a directory without a live index.md: the first LIST page rendered as
 * a document, with an etag over the body so it can be revalidated with
 * `if-none-match` (the only conditional it honours). `include-archived: true`
 * lists archived documents too.
 */
export async function directoryListing(ctx: WorldContext, scope: RequestScope): Promise<MarkResponse> {
  // Go's handleFetchDirectory reads `== "true"` and never refuses the value; only LIST does.
  const includeArchived = scope.request.metadata['include-archived'] === 'true';
  const page = await readPage(ctx, scope, { includeArchived, pageSize: maxListPageEntries, after: null });
  const body = Buffer.from(renderList(scope.path, page.entries, page.complete));
  const etag = sha256Hex(body);
  if (scope.request.metadata['if-none-match'] === etag) return notModified();
  return ok({ entries: String(page.entries.length), etag, 'content-hash': prefixedSha256(body) }, body);
}
