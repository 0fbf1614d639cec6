import { maxListPageEntries } from '../../protocol/limits.ts';
import { renderList } from '../../protocol/render/list.ts';
import { prefixedSha256, sha256Hex } from '../../protocol/token.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import type { RequestScope, WorldContext } from './context.ts';
import { parseIncludeArchived, readPage } from './list.ts';
import { badRequest, notModified, ok } from './respond.ts';

/**
 * FETCH of a directory without a live index.md: the first LIST page rendered as
 * a document, with an etag over the body so it can be revalidated with
 * `if-none-match` (the only conditional it honours).
 */
export async function directoryListing(ctx: WorldContext, scope: RequestScope): Promise<MarkResponse> {
  const includeArchived = parseIncludeArchived(scope.request.metadata['include-archived']);
  if (includeArchived === null) return badRequest('include-archived must be true or false');
  const page = await readPage(ctx, scope, { includeArchived, pageSize: maxListPageEntries, after: null });
  const body = Buffer.from(renderList(scope.path, page.entries, page.complete));
  const etag = sha256Hex(body);
  if (scope.request.metadata['if-none-match'] === etag) return notModified();
  return ok({ entries: String(page.entries.length), etag, 'content-hash': prefixedSha256(body) }, body);
}
