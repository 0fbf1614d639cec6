import { maxBodyBytes } from '../../../protocol/limits.ts';
import { buildExport, type ExportNode } from '../graph-export.ts';
import { withinLinkBound } from '../graph-bounds.ts';
import { documentUrl } from '../link-url.ts';
import type { GraphEdge } from '../model.ts';
import type { DocumentRecord } from './crawl-record.ts';
import type { WorldCrawl } from './world-crawl.ts';

/**
 * The hub's `/graph.md` with each world held to a share of it. The export is
 * one Mark document, at most 1 MiB (src/protocol/limits.ts), and every world
 * reads it; without a share, about 15 documents of 1,000 links in one world
 * made it too large to publish for all of them
 * (test/security/federation-export-share.test.ts). When the whole graph does
 * not fit, the share is the largest number of links per world that does: only
 * the worlds holding more are cut, the heaviest most, and within a world the
 * documents holding the most links are cut first (each keeps its typed
 * relations first, `withinLinkBound`), so its small documents stay whole. If
 * the documents' nodes alone do not fit, nothing is cut and the export is
 * refused as before (oversized-graph.ts). docs/decisions.md, 2026-12-06.
 */
export type SharedExport = {
  body: string;
  nodes: number;
  edges: number;
  /** Links per world when some world was cut, else null. */
  share: number | null;
  /** Per world that was cut: the links left out and the paths of its cut documents. */
  cut: Map<string, WorldCut>;
};

export type WorldCut = { linksLeftOut: number; documents: Set<string> };

export function graphWithinShares(crawls: readonly WorldCrawl[], crawledAt: Date): SharedExport {
  const whole = renderWithin(crawls, crawledAt, Number.POSITIVE_INFINITY);
  if (fits(whole.body)) return whole;
  const heaviest = Math.max(0, ...crawls.map((crawl) => linksOf(crawl.records.values())));
  let best = renderWithin(crawls, crawledAt, 0);
  if (!fits(best.body)) return whole;
  // Fewer links per world never makes the export larger, so the largest share that fits is found by halving.
  let fitting = 0;
  let tooMany = heaviest;
  while (tooMany - fitting > 1) {
    const middle = Math.floor((fitting + tooMany) / 2);
    const candidate = renderWithin(crawls, crawledAt, middle);
    if (fits(candidate.body)) [fitting, best] = [middle, candidate];
    else tooMany = middle;
  }
  return best;
}

/** The summary's words for a published /graph.md whose worlds were cut to their share. */
export function shareDetail(shared: SharedExport): string {
  const worlds = [...shared.cut].map(([world, cut]) => `${world} (${cut.linksLeftOut} links left out)`);
  return `cut to fit the ${maxBodyBytes}-byte body limit: each world keeps at most ${shared.share} links of /graph.md, and ${worlds.join(', ')} held more. The documents with the most links were cut first and are read again by the next crawl; ask the writers of the world(s) named to split or trim them.`;
}

function fits(body: string): boolean {
  return Buffer.byteLength(body) <= maxBodyBytes;
}

function renderWithin(crawls: readonly WorldCrawl[], crawledAt: Date, share: number): SharedExport {
  const nodes: ExportNode[] = [];
  const edges: GraphEdge[] = [];
  const cut = new Map<string, WorldCut>();
  for (const crawl of crawls) {
    const kept = worldWithin(crawl.records, share);
    for (const [path, record] of crawl.records) {
      const url = documentUrl(crawl.world.name, path);
      nodes.push({ url, title: record.title, status: 'ok', linkCount: record.linkCount });
      edges.push(...(kept.get(path) ?? record.edges));
    }
    if (kept.size > 0) {
      const linksLeftOut = [...kept].reduce((sum, [path, edges]) => sum + linksOfPath(crawl, path) - edges.length, 0);
      cut.set(crawl.world.name, { linksLeftOut, documents: new Set(kept.keys()) });
    }
  }
  const body = buildExport(crawledAt, nodes, edges);
  return { body, nodes: nodes.length, edges: edges.length, share: cut.size > 0 ? share : null, cut };
}

/**
 * A world's documents cut so that together they keep at most `share` links:
 * every document keeps up to the same number, the largest for which they fit.
 * Returns only the documents that were cut, with the links they keep.
 */
function worldWithin(records: ReadonlyMap<string, DocumentRecord>, share: number): Map<string, GraphEdge[]> {
  const cut = new Map<string, GraphEdge[]>();
  if (linksOf(records.values()) <= share) return cut;
  const counts = [...records.values()].map((record) => record.edges.length);
  const keptWithin = (perDocument: number) => counts.reduce((sum, n) => sum + Math.min(n, perDocument), 0);
  let perDocument = 0;
  let tooMany = Math.max(...counts);
  while (tooMany - perDocument > 1) {
    const middle = Math.floor((perDocument + tooMany) / 2);
    if (keptWithin(middle) <= share) perDocument = middle;
    else tooMany = middle;
  }
  for (const [path, record] of records)
    if (record.edges.length > perDocument) cut.set(path, withinLinkBound(record.edges, perDocument));
  return cut;
}

function linksOf(records: Iterable<DocumentRecord>): number {
  let links = 0;
  for (const record of records) links += record.edges.length;
  return links;
}

function linksOfPath(crawl: WorldCrawl, path: string): number {
  return crawl.records.get(path)?.edges.length ?? 0;
}
