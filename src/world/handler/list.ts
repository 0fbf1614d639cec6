import { isHashPath } from '../../protocol/paths.ts';
import { maxListPageEntries } from '../../protocol/limits.ts';
import { renderList } from '../../protocol/render/list.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import type { DirEntry } from '../store/index.ts';
import type { RequestScope, WorldContext } from './context.ts';
import { decodeListCursor, encodeListCursor, ListCursorError } from './list-cursor.ts';
import { canRead, checkRead } from './read-auth.ts';
import { badRequest, notFound, ok } from './respond.ts';

export type ListPage = { entries: DirEntry[]; complete: boolean };

/** LIST (Mark SPEC §6.2): immediate children, paged, with per-entry read-auth. */
export async function handleList(ctx: WorldContext, scope: RequestScope): Promise<MarkResponse> {
  const { path } = scope;
  const denied = checkRead(scope.tokens, scope.token, path);
  if (denied) return denied;
  if (isHashPath(path)) return notFound(`${path} not found`);
  const options = parseListOptions(scope.request.metadata, path);
  if (typeof options === 'string') return badRequest(options);
  if (!(await ctx.store.isDirectory(path))) return notFound(`${path} not found`);
  const page = await readPage(ctx, scope, options);
  const metadata: Record<string, string> = { entries: String(page.entries.length), complete: String(page.complete) };
  const last = page.entries.at(-1);
  if (!page.complete && last !== undefined) {
    metadata['next-cursor'] = encodeListCursor({
      dir: path,
      includeArchived: options.includeArchived,
      after: last.name,
    });
  }
  return ok(metadata, renderList(path, page.entries, page.complete));
}

type ListOptions = { includeArchived: boolean; pageSize: number; after: string | null };

/** Returns the options, or the bad-request message. */
export function parseListOptions(meta: Record<string, string>, dir: string): ListOptions | string {
  const includeArchived = parseIncludeArchived(meta['include-archived']);
  if (includeArchived === null) return 'include-archived must be true or false';
  const pageSizeText = meta['page-size'];
  const pageSize = pageSizeText === undefined ? maxListPageEntries : Number(pageSizeText);
  if (!/^\d+$/.test(pageSizeText ?? '1') || pageSize < 1 || pageSize > maxListPageEntries) {
    return `page-size must be between 1 and ${maxListPageEntries}`;
  }
  const cursor = meta.cursor;
  if (cursor === undefined || cursor === '') return { includeArchived, pageSize, after: null };
  try {
    return { includeArchived, pageSize, after: decodeListCursor(cursor, { dir, includeArchived }) };
  } catch (error) {
    if (error instanceof ListCursorError) return error.message;
    throw error;
  }
}

export function parseIncludeArchived(value: string | undefined): boolean | null {
  if (value === undefined || value === 'false') return false;
  if (value === 'true') return true;
  return null;
}

/**
 * Hidden entries do not count toward the page, so read-auth comes before the
 * cut; one entry past the page is enough to know the page is not the last.
 */
export async function readPage(ctx: WorldContext, scope: RequestScope, options: ListOptions): Promise<ListPage> {
  const prefix = scope.path === '/' ? '/' : `${scope.path}/`;
  const visible = await ctx.store.list(scope.path, {
    includeArchived: options.includeArchived,
    after: options.after,
    admit: (name, kind) => canRead(scope.tokens, scope.token, prefix + name + (kind === 'directory' ? '/' : '')),
    limit: options.pageSize + 1,
    signal: scope.signal,
  });
  return { entries: visible.slice(0, options.pageSize), complete: visible.length <= options.pageSize };
}
