import { Status } from '../../../protocol/status.ts';
import type { WorldGateway, WorldInfo } from '../../worlds/gateway.ts';
import { parseContentIndex } from '../../../protocol/render/content-index.ts';
import { parseExport } from '../graph-export.ts';
import { documentUrl, isMarkUrl } from '../link-url.ts';
import type { GraphEdge } from '../model.ts';
import { WorldDirectory } from '../world-urls.ts';
import { crawlStatePath, parseCrawlState } from './crawl-state.ts';
import { emptyCrawlState, outputFingerprint, type DocumentRecord, type FederationCrawlState } from './crawl-record.ts';

/**
 * Where the federation crawl writes on the hub, and how it reads its previous
 * run back from there:
 * - `/graph.md`: the whole graph, URLs as `mark://{worldName}/...`;
 * - `/index/<host:port>.md`: each world's content index (Mark SPEC §12.1,
 *   demarkus ADR 0018), keyed by the world's dial address, rows naming the world as
 *   `mark://{worldName}` so mark_resolve can reach it through the broker;
 * - `/.demarkus/crawl-state/<world>.md`: the etags behind the two above.
 */
export const graphOutputPath = '/graph.md';

export function indexOutputPath(world: WorldInfo): string {
  return `/index/${world.address}.md`;
}

/**
 * What the broker itself writes into worlds: the graph export, the per-world
 * hash indexes (`/index/<host:port>.md`, always a dial address with a port)
 * and the crawl state. Search and lookup leave them out unless asked: they
 * are machine artifacts whose words match almost any query.
 */
export function isGeneratedDocument(path: string): boolean {
  return path === graphOutputPath || path.startsWith('/.demarkus/') || /^\/index\/[^/]*:\d+\.md$/.test(path);
}

/** The crawler's own outputs on the hub are never crawled as content. */
export function isHubOutput(path: string): boolean {
  return path === graphOutputPath || path === '/index' || path.startsWith('/index/') || path.startsWith('/.demarkus/');
}

/**
 * The previous crawl as the hub holds it. A document gets a record only when
 * all three outputs agree on it (an etag, a graph node and an index row);
 * anything missing means it is simply read again. `now` is the crawl's clock,
 * which no cutoff the crawl wrote can be later than (crawl-state.ts).
 *
 * `agent` is the email the crawl publishes as (hub-publish.ts): an output
 * whose current version names another agent was not written by the crawl
 * (a hub writer's, from before the write tools refused these paths, which
 * always stamped the caller's own agent, src/broker/mcp/write-gate.ts), so it
 * counts as missing: the crawl reads afresh and writes it again as its own
 * (docs/decisions.md, 2026-12-07).
 */
export async function loadPreviousCrawl(
  gateway: WorldGateway,
  hub: string,
  worlds: readonly WorldInfo[],
  now: Date,
  agent: string,
  signal?: AbortSignal,
): Promise<FederationCrawlState> {
  const state = emptyCrawlState();
  const fetchBody = (path: string) => fetchOwnBody(gateway, hub, path, agent, signal);
  const graphBody = await fetchBody(graphOutputPath);
  if (graphBody !== null) state.outputs.set(graphOutputPath, outputFingerprint(graphBody));
  const directory = new WorldDirectory(worlds);
  const graph = graphBody === null ? { nodes: [], edges: [] } : parseExport(graphBody);
  const nodes = new Map(graph.nodes.map((n) => [directory.translate(n.url), n]));
  const edgesFrom = groupEdges(graph.edges, directory);
  await Promise.all(
    worlds.map(async (world) => {
      const [indexBody, stateBody] = await Promise.all([
        fetchBody(indexOutputPath(world)),
        fetchBody(crawlStatePath(world.name)),
      ]);
      if (indexBody !== null) state.outputs.set(indexOutputPath(world), outputFingerprint(indexBody));
      if (stateBody !== null) state.outputs.set(crawlStatePath(world.name), outputFingerprint(stateBody));
      const hashes = new Map(
        (indexBody === null ? [] : parseContentIndex(indexBody))
          .filter((e) => e.server === `mark://${world.name}`)
          .map((e) => [e.path, e.hash]),
      );
      const records = new Map<string, DocumentRecord>();
      const parsed = parseCrawlState(world.name, stateBody ?? '', now);
      for (const [path, etag] of parsed.etags) {
        const url = documentUrl(world.name, path);
        const node = nodes.get(url);
        const contentHash = hashes.get(path);
        if (node === undefined || node.status !== Status.Ok || contentHash === undefined) continue;
        records.set(path, {
          etag,
          contentHash,
          title: node.title,
          linkCount: node.linkCount,
          edges: edgesFrom.get(url) ?? [],
        });
      }
      // The cutoff vouches for the records; without any record it is of no use.
      state.worlds.set(world.name, { records, changedAfter: records.size > 0 ? parsed.changedAfter : null });
    }),
  );
  return state;
}

function groupEdges(edges: readonly GraphEdge[], directory: WorldDirectory): Map<string, GraphEdge[]> {
  const grouped = new Map<string, GraphEdge[]>();
  for (const edge of edges) {
    const from = directory.translate(edge.from);
    const to = directory.translate(edge.to);
    if (!isMarkUrl(to)) continue;
    const list = grouped.get(from) ?? [];
    list.push({ ...edge, from, to });
    grouped.set(from, list);
  }
  return grouped;
}

/** The body of a hub document `agent` wrote, or null when it is missing, unreadable (a first crawl) or another's. */
async function fetchOwnBody(
  gateway: WorldGateway,
  hub: string,
  path: string,
  agent: string,
  signal?: AbortSignal,
): Promise<string | null> {
  try {
    const response = await gateway.read(hub, { verb: 'FETCH', path, ...(signal ? { signal } : {}) });
    if (response.status !== Status.Ok || response.metadata.agent !== agent) return null;
    return Buffer.from(response.body).toString('utf8');
  } catch {
    return null;
  }
}
