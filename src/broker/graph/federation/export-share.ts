import { maxBodyBytes } from '../../../protocol/limits.ts';
import { buildExport, exportEdgeRow, exportNodeRow, type ExportNode, type PartialWorld } from '../graph-export.ts';
import { inLinkBoundOrder, withinLinkBound } from '../graph-bounds.ts';
import { documentUrl } from '../link-url.ts';
import { compareUtf8, type GraphEdge } from '../model.ts';
import type { DocumentRecord } from './crawl-record.ts';
import type { WorldCrawl } from './world-crawl.ts';

/**
 * The hub's `/graph.md` with each world held to a share of it. The export is
 * one Mark document, at most 1 MiB (src/protocol/limits.ts), and every world
 * reads it; without a share, about 15 documents of 1,000 links in one world
 * (test/security/federation-export-share.test.ts), or about 10,000 documents
 * of rows alone (test/security/federation-export-rows.test.ts), made it too
 * large to publish for all of them.
 *
 * The share is in bytes of table rows, the one measure that covers both a
 * world's document rows and its link rows. When the whole graph does not fit,
 * it is the largest share per world that does: only the worlds holding more
 * are cut, the heaviest most. A cut world keeps its rows first, its shortest
 * first (so the most documents stay listed), and then, once every row fits,
 * the links of its documents, those holding the most links cut first (each
 * keeps its typed relations first, `withinLinkBound`), so its small documents
 * stay whole. The export's `## Partial` section names every world cut with
 * that per-document number (graph-export.ts), and the crawl gives the cut documents no etag, so they are
 * read again next run. docs/decisions.md, 2026-12-06 and 2026-12-07.
 */
export type SharedExport = {
  body: string;
  nodes: number;
  edges: number;
  /** Bytes of table rows per world when some world was cut, else null. */
  share: number | null;
  /** Per world that was cut: what was left out and the paths of its cut documents. */
  cut: Map<string, WorldCut>;
};

/**
 * `documents`: paths whose row or links were left out. `linksPerDocument`: the
 * links each listed document kept at most (0 when rows were cut), which the
 * `## Partial` bullet states so seeding merges only documents that may be cut.
 */
export type WorldCut = Omit<PartialWorld, 'world'> & { documents: Set<string> };

export function graphWithinShares(crawls: readonly WorldCrawl[], crawledAt: Date): SharedExport {
  const worlds = crawls.map(worldRows);
  const whole = renderWithin(worlds, crawledAt, Number.POSITIVE_INFINITY);
  if (fits(whole.body)) return whole;
  let best = renderWithin(worlds, crawledAt, 0);
  // Only the header and one partial line per world are left: thousands of worlds.
  if (!fits(best.body)) return whole;
  // A smaller share never makes the rows larger, so the largest share that fits is found by halving.
  let fitting = 0;
  let tooMany = Math.max(0, ...worlds.map((w) => w.bytes));
  while (tooMany - fitting > 1) {
    const middle = Math.floor((fitting + tooMany) / 2);
    const candidate = renderWithin(worlds, crawledAt, middle);
    if (fits(candidate.body)) [fitting, best] = [middle, candidate];
    else tooMany = middle;
  }
  return best;
}

/** The summary's words for a published /graph.md whose worlds were cut to their share. */
export function shareDetail(shared: SharedExport): string {
  const worlds = [...shared.cut].map(
    ([world, cut]) => `${world} (${cut.documentsLeftOut} documents and ${cut.linksLeftOut} links left out)`,
  );
  return `cut to fit the ${maxBodyBytes}-byte body limit: each world keeps at most ${shared.share} bytes of /graph.md rows, and ${worlds.join(', ')} held more; its section "## Partial" names them, so that brokers seeding from it keep what it leaves out. Rows were kept shortest first, then the documents with the most links lost links first; the cut documents are read again by the next crawl. Ask the writers of the world(s) named to archive or trim documents, or give them a hub of their own.`;
}

function fits(body: string): boolean {
  return Buffer.byteLength(body) <= maxBodyBytes;
}

/** One document as the export writes it: its row, its links, and their rows' bytes in the order a cut keeps them. */
type DocumentRows = { path: string; node: ExportNode; rowBytes: number; edges: GraphEdge[]; edgeBytes: number[] };

/** A world's documents, cheapest row first, and the bytes of all its rows. */
type WorldRows = { name: string; documents: DocumentRows[]; links: number; bytes: number };

function worldRows(crawl: WorldCrawl): WorldRows {
  const documents: DocumentRows[] = [];
  let bytes = 0;
  let links = 0;
  for (const [path, record] of crawl.records) {
    const node = exportNodeOf(crawl.world.name, path, record);
    const document = {
      path,
      node,
      rowBytes: Buffer.byteLength(exportNodeRow(node)),
      edges: record.edges,
      edgeBytes: inLinkBoundOrder(record.edges).map((edge) => Buffer.byteLength(exportEdgeRow(edge))),
    };
    documents.push(document);
    bytes += document.rowBytes + document.edgeBytes.reduce((sum, n) => sum + n, 0);
    links += record.edges.length;
  }
  documents.sort((a, b) => a.rowBytes - b.rowBytes || compareUtf8(a.path, b.path));
  return { name: crawl.world.name, documents, links, bytes };
}

function exportNodeOf(world: string, path: string, record: DocumentRecord): ExportNode {
  return { url: documentUrl(world, path), title: record.title, status: 'ok', linkCount: record.linkCount };
}

function renderWithin(worlds: readonly WorldRows[], crawledAt: Date, share: number): SharedExport {
  const nodes: ExportNode[] = [];
  const edges: GraphEdge[] = [];
  const cut = new Map<string, WorldCut>();
  for (const world of worlds) {
    const kept = worldWithin(world, share);
    for (const document of kept.documents) nodes.push(document.node);
    for (const list of kept.edges) edges.push(...list);
    if (kept.cut.size > 0)
      cut.set(world.name, {
        documentsLeftOut: world.documents.length - kept.documents.length,
        linksLeftOut: world.links - kept.edges.reduce((sum, list) => sum + list.length, 0),
        linksPerDocument: kept.linksPerDocument,
        documents: kept.cut,
      });
  }
  const partial: PartialWorld[] = [...cut].map(([world, { documents: _, ...counts }]) => ({ world, ...counts }));
  const body = buildExport(crawledAt, nodes, edges, partial);
  return { body, nodes: nodes.length, edges: edges.length, share: cut.size > 0 ? share : null, cut };
}

/** `linksPerDocument`: the most links a kept document kept (infinite for a whole world). */
type KeptRows = { documents: DocumentRows[]; edges: GraphEdge[][]; cut: Set<string>; linksPerDocument: number };

/**
 * A world's rows within `share` bytes: its document rows first, cheapest
 * first; only when all of them fit, its links, every document keeping up to
 * one common number of them, the largest that fits what is left.
 */
function worldWithin(world: WorldRows, share: number): KeptRows {
  if (world.bytes <= share)
    return {
      documents: world.documents,
      edges: world.documents.map((d) => d.edges),
      cut: new Set(),
      linksPerDocument: Number.POSITIVE_INFINITY,
    };
  const documents: DocumentRows[] = [];
  let used = 0;
  for (const document of world.documents) {
    if (used + document.rowBytes > share) break;
    documents.push(document);
    used += document.rowBytes;
  }
  if (documents.length < world.documents.length) {
    // A kept document without links is whole; one whose links go is cut like a left-out one.
    const whole = new Set(documents.filter((d) => d.edges.length === 0).map((d) => d.path));
    const cut = new Set(world.documents.map((d) => d.path).filter((p) => !whole.has(p)));
    return { documents, edges: [], cut, linksPerDocument: 0 };
  }
  const perDocument = linksPerDocumentWithin(documents, share - used);
  const cut = new Set<string>();
  const edges = documents.map((document) => {
    if (document.edges.length <= perDocument) return document.edges;
    cut.add(document.path);
    return withinLinkBound(document.edges, perDocument);
  });
  return { documents, edges, cut, linksPerDocument: perDocument };
}

/** The largest number of links every document may keep (in cut order) with their rows within `room` bytes. */
function linksPerDocumentWithin(documents: readonly DocumentRows[], room: number): number {
  const bytesWithin = (perDocument: number) => {
    let sum = 0;
    for (const document of documents)
      for (let i = 0; i < Math.min(perDocument, document.edgeBytes.length); i++) sum += document.edgeBytes[i]!;
    return sum;
  };
  let fitting = 0;
  let tooMany = Math.max(0, ...documents.map((d) => d.edges.length)) + 1;
  while (tooMany - fitting > 1) {
    const middle = Math.floor((fitting + tooMany) / 2);
    if (bytesWithin(middle) <= room) fitting = middle;
    else tooMany = middle;
  }
  return fitting;
}
