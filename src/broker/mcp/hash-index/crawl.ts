import { canonicalPath } from '../../../protocol/paths.ts';
import type { MarkResponse } from '../../../protocol/response.ts';
import type { ToolContext } from '../definitions.ts';
import { agentMessage } from '../tool-result.ts';
import { contentHashPattern, type IndexEntry } from '../../../protocol/render/content-index.ts';
import { errorWithCode } from '../../../errors/coded-error.ts';
import { firstListingProblem, walkWorld } from '../../worlds/index.ts';

/**
 * mark_index's crawl of a source world (Go broker `MCP-API.md`, mark_index): the world
 * walk (src/broker/worlds/world-walk.ts) from the source directory down, then
 * one FETCH per document for its `content-hash`. Bounded in documents, LISTs
 * and depth. Anything skipped is recorded, so the caller can refuse to publish
 * an index that does not cover the whole tree.
 */
export type CrawlBounds = { maxDocuments: number; maxLists: number; maxDepth: number };

export const crawlBounds: Readonly<CrawlBounds> = { maxDocuments: 1000, maxLists: 4096, maxDepth: 16 };

export type CrawlResult = {
  entries: IndexEntry[];
  /** A bound was reached: the index is truncated. */
  truncated: boolean;
  /** What was skipped and why (`<path>: <reason>`). */
  skipped: string[];
};

/** The source directory itself could not be listed: there is nothing to index. */
export class CrawlError extends errorWithCode('ERR_INDEX_CRAWL') {}

export async function crawlForIndex(
  ctx: ToolContext,
  world: string,
  sourcePath: string,
  bounds: Readonly<CrawlBounds> = crawlBounds,
): Promise<CrawlResult> {
  const root = canonicalPath(sourcePath).replace(/\/?$/, '/');
  const listing = await walkWorld(ctx.gateway, world, { ...bounds, workers: 1 }, { root, signal: ctx.signal });
  const skipped = listing.problems.filter((problem) => !listing.boundsReached.includes(problem));
  if (listing.documents.length === 0 && skipped.some((problem) => problem.startsWith(`${root}: `)))
    // Why, as mark_doctor says it: a down world's refusal (with when it is tried again) or the world's LIST status.
    throw new CrawlError(`could not list ${root} in world ${world}: ${firstListingProblem({ problems: skipped })}`);
  const entries: IndexEntry[] = [];
  for (const path of listing.documents) {
    ctx.signal.throwIfAborted();
    const hash = await contentHashOf(ctx, world, path);
    if (hash.ok) entries.push({ hash: hash.value, server: `mark://${world}`, path });
    else skipped.push(`${path}: ${hash.reason}`);
  }
  return { entries, truncated: listing.boundsReached.length > 0, skipped };
}

async function contentHashOf(
  ctx: ToolContext,
  world: string,
  path: string,
): Promise<{ ok: true; value: string } | { ok: false; reason: string }> {
  let response: MarkResponse;
  try {
    response = await ctx.gateway.read(world, { verb: 'FETCH', path, signal: ctx.signal });
  } catch (error) {
    return { ok: false, reason: agentMessage(error) };
  }
  if (response.status !== 'ok') return { ok: false, reason: `status ${response.status}` };
  const hash = response.metadata['content-hash'] ?? '';
  if (!contentHashPattern.test(hash)) return { ok: false, reason: 'missing or invalid content-hash' };
  return { ok: true, value: hash };
}
