import { canonicalPath } from '../../../protocol/paths.ts';
import { maxListPageEntries } from '../../../protocol/limits.ts';
import type { MarkResponse } from '../../../protocol/response.ts';
import type { ToolContext } from '../definitions.ts';
import { parseListingPage, type ListedEntry } from '../listing/parse-listing.ts';
import { agentMessage } from '../tool-result.ts';
import type { IndexEntry } from './legacy-index.ts';
import { errorWithCode } from '../../../errors/coded-error.ts';

/**
 * mark_index's walk of a source world (go-broker-inventory §4.3): paginated
 * LISTs from the source directory down, one FETCH per document for its
 * `content-hash`. Bounded in documents, LISTs and depth, and confined to the
 * source directory. Anything skipped is recorded, so the caller can refuse to
 * publish an index that does not cover the whole tree.
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

/** A LIST that could not be sent or a cursor that did not advance: the crawl cannot go on. */
export class CrawlError extends errorWithCode('ERR_INDEX_CRAWL') {}

class BoundReached extends Error {}

const contentHash = /^sha256-[0-9a-f]{64}$/;

export async function crawlForIndex(
  ctx: ToolContext,
  world: string,
  sourcePath: string,
  bounds: Readonly<CrawlBounds> = crawlBounds,
): Promise<CrawlResult> {
  const root = canonicalPath(sourcePath).replace(/\/?$/, '/');
  const walk = new IndexWalk(ctx, world, `mark://${world}`, root, bounds);
  try {
    await walk.directory(root, 0);
  } catch (error) {
    if (!(error instanceof BoundReached)) throw error;
    walk.truncated = true;
  }
  return { entries: walk.entries, truncated: walk.truncated, skipped: walk.skipped };
}

class IndexWalk {
  readonly entries: IndexEntry[] = [];
  readonly skipped: string[] = [];
  truncated = false;
  readonly #visited: Set<string>;
  #lists = 0;
  #fetches = 0;

  readonly ctx: ToolContext;
  readonly world: string;
  readonly server: string;
  readonly root: string;
  readonly bounds: Readonly<CrawlBounds>;

  constructor(ctx: ToolContext, world: string, server: string, root: string, bounds: Readonly<CrawlBounds>) {
    this.ctx = ctx;
    this.world = world;
    this.server = server;
    this.root = root;
    this.bounds = bounds;
    this.#visited = new Set([root]);
  }

  async directory(dir: string, depth: number): Promise<void> {
    if (depth > this.bounds.maxDepth) throw new BoundReached();
    const cursors = new Set<string>();
    for (let cursor = ''; ; ) {
      const response = await this.list(dir, cursor);
      if (response.status !== 'ok') {
        this.skipped.push(`${dir}: status ${response.status}`);
        return;
      }
      const page = parseListingPage(dir, response);
      for (const bad of page.invalid) this.skipped.push(`${dir}: invalid entry ${bad}`);
      for (const entry of page.entries) await this.entry(entry, depth);
      if (page.complete) return;
      const next = page.nextCursor ?? '';
      if (next === '' || next === cursor || cursors.has(next))
        throw new CrawlError(`list ${dir}: continuation cursor did not advance`);
      cursors.add(next);
      cursor = next;
    }
  }

  async list(dir: string, cursor: string): Promise<MarkResponse> {
    if (this.#lists >= this.bounds.maxLists) throw new BoundReached();
    this.#lists++;
    const metadata: Record<string, string> = { 'page-size': String(maxListPageEntries) };
    if (cursor !== '') metadata.cursor = cursor;
    try {
      return await this.ctx.gateway.read(this.world, { verb: 'LIST', path: dir, metadata, signal: this.ctx.signal });
    } catch (error) {
      throw new CrawlError(`list ${dir}: ${agentMessage(error)}`, { cause: error });
    }
  }

  async entry(entry: ListedEntry, depth: number): Promise<void> {
    this.ctx.signal.throwIfAborted();
    const path = entry.isDir ? entry.path.replace(/\/?$/, '/') : entry.path;
    // A listing entry must not lead out of the source tree (e.g. via "..").
    if (!path.startsWith(this.root)) {
      this.skipped.push(`${path}: escapes source root`);
      return;
    }
    if (entry.isDir) {
      if (this.#visited.has(path)) return;
      this.#visited.add(path);
      await this.directory(path, depth + 1);
      return;
    }
    if (this.#fetches >= this.bounds.maxDocuments) throw new BoundReached();
    this.#fetches++;
    await this.document(path);
  }

  async document(path: string): Promise<void> {
    let response: MarkResponse;
    try {
      response = await this.ctx.gateway.read(this.world, { verb: 'FETCH', path, signal: this.ctx.signal });
    } catch (error) {
      this.skipped.push(`${path}: ${agentMessage(error)}`);
      return;
    }
    if (response.status !== 'ok') {
      this.skipped.push(`${path}: status ${response.status}`);
      return;
    }
    const hash = response.metadata['content-hash'] ?? '';
    if (!contentHash.test(hash)) {
      this.skipped.push(`${path}: missing or invalid content-hash`);
      return;
    }
    this.entries.push({ hash, server: this.server, path });
  }
}
