import { hashFromPath, isHashPath, splitVersionSuffix } from '../../protocol/paths.ts';
import { errorResponse, type MarkResponse } from '../../protocol/response.ts';
import { Status } from '../../protocol/status.ts';
import type { RequestScope, WorldContext } from './context.ts';
import { documentResponse } from './document-response.ts';
import { directoryListing } from './directory-listing.ts';
import { manifestPath, generatedManifest } from '../manifest.ts';
import { canRead, checkRead } from './read-auth.ts';
import { notFound, ok } from './respond.ts';

/**
 * FETCH (Mark SPEC §6.1) in its three forms: a content hash, a pinned version
 * `/doc.md/vN`, or a plain path (a document, a directory's index.md, or a
 * generated listing).
 */
export async function handleFetch(ctx: WorldContext, scope: RequestScope): Promise<MarkResponse> {
  if (isHashPath(scope.path)) return fetchByHash(ctx, scope);
  const pinned = splitVersionSuffix(scope.path);
  if (pinned !== null && !(await ctx.store.isDirectory(pinned.base)))
    return fetchVersion(ctx, scope, pinned.base, pinned.version);
  return fetchPath(ctx, scope);
}

/**
 * The hash index holds current, live documents only. Read-auth decides which
 * paths may answer: a body the caller may not read is "not found", exactly as
 * an unknown hash, so the answer does not confirm that protected content exists
 * (the Go server answers `unauthorized` here; see docs/decisions.md).
 */
async function fetchByHash(ctx: WorldContext, scope: RequestScope): Promise<MarkResponse> {
  const hash = hashFromPath(scope.path);
  const missing = () => notFound(`content not found for hash ${hash}`);
  const path = ctx.hashIndex.lookup(hash, (candidate) => canRead(scope.tokens, scope.token, candidate));
  if (path === undefined) return missing();
  const doc = await ctx.store.current(path);
  if (doc === null || doc.archived) return missing();
  return documentResponse(scope.request.metadata, doc.current);
}

/** Pinned versions are served even when the document is archived; read-auth is on the base path. */
async function fetchVersion(ctx: WorldContext, scope: RequestScope, base: string, n: number): Promise<MarkResponse> {
  const denied = checkRead(scope.tokens, scope.token, base);
  if (denied) return denied;
  const [version, doc] = await Promise.all([ctx.store.version(base, n), ctx.store.current(base)]);
  if (version === null || doc === null) return notFound(`${scope.path} not found`);
  return documentResponse(scope.request.metadata, version, { 'current-version': String(doc.current.version) });
}

async function fetchPath(ctx: WorldContext, scope: RequestScope): Promise<MarkResponse> {
  const { path } = scope;
  const denied = checkRead(scope.tokens, scope.token, path);
  if (denied) return denied;
  const doc = await ctx.store.current(path);
  if (doc !== null) {
    if (doc.archived) return errorResponse(Status.Archived, `${path} is archived`);
    return documentResponse(scope.request.metadata, doc.current);
  }
  if (await ctx.store.isDirectory(path)) return fetchDirectory(ctx, scope);
  if (path === manifestPath) return ok({}, generatedManifest(ctx.name, { bodySearch: ctx.bodyIndex !== null }));
  return notFound(`${path} not found`);
}

/** A directory answers with its live index.md, else with a generated listing. */
async function fetchDirectory(ctx: WorldContext, scope: RequestScope): Promise<MarkResponse> {
  const indexPath = scope.path === '/' ? '/index.md' : `${scope.path}/index.md`;
  const index = await ctx.store.current(indexPath);
  if (index !== null && !index.archived) {
    const denied = checkRead(scope.tokens, scope.token, indexPath);
    if (denied) return denied;
    return documentResponse(scope.request.metadata, index.current);
  }
  return directoryListing(ctx, scope);
}
