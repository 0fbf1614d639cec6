import { Status } from '../../protocol/status.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import { CrawledGraph } from './crawled-graph.ts';
import { documentLinks } from './document-links.ts';
import { isMarkUrl } from './link-url.ts';
import { UnobservedStatus, type GraphNode } from './model.ts';
import { runPool } from '../../concurrency/pool.ts';
import { defaultGraphBounds, documentLinkBounds } from './graph-bounds.ts';
import type { WorldDirectory } from './world-urls.ts';
import { WorldGatewayError } from '../worlds/gateway.ts';

/**
 * Breadth-first crawl from one document (client/graph.Crawl and
 * `graphstore.CrawlAndPersist`, Go `client/graph/crawl.go`): a bounded pool of
 * workers FETCHes documents, each read document adds its body links and
 * `rel-*` edges, and targets are followed while their depth is below the
 * limit. Only `mark://{configured world}/...` targets are fetched; any other
 * target becomes an `external` node and is not followed. At most `maxNodes`
 * nodes are produced, external and failed ones included. A document
 * contributes at most the graph's share of one document's links, and a crawl
 * at most `maxEdges` links in all (src/broker/graph/graph-bounds.ts): 200
 * documents of 1 MiB of links each would otherwise hold gigabytes until the
 * crawl ends. A document whose links were cut is marked `linksCut`.
 */

export type CrawlLimits = { maxDepth: number; maxNodes: number; workers: number; maxEdges?: number };

/**
 * mark_graph's bounds: depth 2 by default and at most 5, 200 nodes, 5 workers,
 * and as many links as one world may hold in the graph.
 */
export const defaultCrawlLimits: Required<CrawlLimits> = {
  maxDepth: 2,
  maxNodes: 200,
  workers: 5,
  maxEdges: defaultGraphBounds.edgesPerWorld,
};
export const maxCrawlDepth = 5;

/** A FETCH of `path` in `world`; rejects on transport failure. */
export type DocumentFetcher = (world: string, path: string, signal: AbortSignal | undefined) => Promise<MarkResponse>;

export type CrawlResult = { graph: CrawledGraph; etags: Map<string, string> };

type QueueItem = { url: string; depth: number };

export async function crawl(
  startUrl: string,
  fetcher: DocumentFetcher,
  worlds: WorldDirectory,
  limits: CrawlLimits,
  signal?: AbortSignal,
): Promise<CrawlResult> {
  const graph = new CrawledGraph();
  const etags = new Map<string, string>();
  const queue: QueueItem[] = [{ url: startUrl, depth: 0 }];
  const visited = new Set<string>([startUrl]);
  const enqueue = (url: string, depth: number) => {
    // Nothing past maxNodes will be processed; queueing it would only cost memory.
    if (visited.size >= limits.maxNodes || visited.has(url)) return;
    visited.add(url);
    queue.push({ url, depth });
  };
  const edgeRoom = new EdgeRoom(limits.maxEdges ?? defaultCrawlLimits.maxEdges);
  const visit = async (item: QueueItem) => {
    const node = await readNode(item, { fetcher, worlds, signal, etags, edgeRoom });
    graph.addNode(node.node);
    for (const edge of node.edges) {
      graph.addEdge(edge);
      if (item.depth < limits.maxDepth) enqueue(edge.to, item.depth + 1);
    }
  };
  await runPool(queue, visit, { workers: limits.workers, maxItems: limits.maxNodes, signal });
  return { graph, etags };
}

/**
 * The links a crawl may still keep, taken by a read when it keeps them rather
 * than measured from the graph when its visit adds them: between the two, the
 * visit awaits, and other workers' reads resume from their FETCH and measure
 * the same room, so with 5 workers a crawl kept up to 4,000 links past
 * `maxEdges` (test/broker/graph/crawler.test.ts). A read's edges all come from
 * its own document, which is read once, so the links it takes are exactly the
 * distinct edges it adds to the graph, which `documentLinks` counted when it
 * kept them (src/broker/graph/document-links.ts).
 */
class EdgeRoom {
  #left: number;

  constructor(maxEdges: number) {
    this.#left = Math.max(0, maxEdges);
  }

  get left(): number {
    return this.#left;
  }

  /** Takes the room for `distinctLinks` links; the caller kept at most `left` of them. */
  take(distinctLinks: number): void {
    this.#left -= distinctLinks;
  }
}

type ReadContext = {
  fetcher: DocumentFetcher;
  worlds: WorldDirectory;
  signal: AbortSignal | undefined;
  etags: Map<string, string>;
  edgeRoom: EdgeRoom;
};

async function readNode(item: QueueItem, { fetcher, worlds, signal, etags, edgeRoom }: ReadContext) {
  const blank = { url: item.url, title: '', linkCount: 0 };
  if (!isMarkUrl(item.url)) return { node: { ...blank, status: UnobservedStatus.External }, edges: [] };
  const target = worlds.locate(item.url);
  if (target === null) return { node: { ...blank, status: UnobservedStatus.External }, edges: [] };
  let response: MarkResponse;
  try {
    response = await fetcher(target.world, target.path, signal);
  } catch (error) {
    return { node: { ...blank, status: UnobservedStatus.Error, failure: fetchFailure(error) }, edges: [] };
  }
  const etag = response.metadata.etag;
  if (etag) etags.set(item.url, etag);
  if (response.status !== Status.Ok)
    return { node: { ...blank, status: response.status || UnobservedStatus.Error }, edges: [] };
  const body = textBody(response.body);
  const bounds = { ...documentLinkBounds, distinct: Math.min(documentLinkBounds.distinct, edgeRoom.left) };
  const links =
    body === null
      ? { title: '', linkCount: 0, edges: [], distinctEdges: 0 }
      : documentLinks(item.url, body, response.metadata, worlds, bounds);
  // No await since the room was read: the links kept are taken before any other read resumes.
  edgeRoom.take(links.distinctEdges);
  const node: GraphNode = {
    url: item.url,
    title: links.title,
    status: Status.Ok,
    linkCount: links.linkCount,
    ...(links.linksCut === true ? { linksCut: true } : {}),
  };
  return { node, edges: links.edges };
}

/**
 * Why a FETCH failed, as the agent may read it: a world gateway error's message
 * is written for the agent (its codes are all in agentVisibleCodes,
 * src/broker/mcp/tool-result.ts); anything else may carry library text or an
 * address, so it stays a plain word.
 */
function fetchFailure(error: unknown): string {
  if (error instanceof Error && error.name === 'AbortError') return 'request cancelled';
  return error instanceof WorldGatewayError ? error.message : 'the fetch failed';
}

const utf8 = new TextDecoder('utf-8');

/** The body as text, or null for binary content (a NUL byte), which has no links. */
export function textBody(bytes: Uint8Array): string | null {
  return bytes.includes(0) ? null : utf8.decode(bytes);
}
