import { formatRfc3339 } from '../../protocol/time.ts';
import { compareEdges, compareUtf8, type GraphEdge, type GraphNode } from './model.ts';

/**
 * The `/graph.md` document (Go `client/graphstore/export.go`
 * `BuildExport`): a header with the export time and counts, a node table
 * sorted by URL and, when there are edges, a six-column edge table sorted by
 * (from, to, rel). Produced by mark_graph_export, mark_graph_publish and the
 * federation crawl; read back by seeding.
 */

export type ExportNode = Pick<GraphNode, 'url' | 'title' | 'status' | 'linkCount'>;
export type ExportEdge = GraphEdge;

/**
 * A world the export leaves part of out (the federation crawl's share,
 * src/broker/graph/federation/export-share.ts). `linksPerDocument`: every
 * listed document of the world holding fewer links than this is whole, one
 * holding this many may have been cut; 0 when the world's rows were cut, as
 * then every document lost its links.
 */
export type PartialWorld = { world: string; documentsLeftOut: number; linksLeftOut: number; linksPerDocument: number };

export function buildExport(
  exportedAt: Date,
  nodes: Iterable<ExportNode>,
  edges: Iterable<ExportEdge>,
  partial: readonly PartialWorld[] = [],
): string {
  const sortedNodes = [...nodes].sort((a, b) => compareUtf8(a.url, b.url));
  const sortedEdges = [...edges].sort(compareEdges);
  const header = exportHeader(exportedAt, sortedNodes.length, sortedEdges.length);
  return header + (partial.length > 0 ? partialSection(partial) : '') + exportTables(sortedNodes, sortedEdges);
}

/** The title and the `> ` lines: the export time and the counts of the whole graph. */
export function exportHeader(exportedAt: Date, nodeCount: number, edgeCount: number): string {
  return `# Document Graph\n\n> Exported: ${formatRfc3339(exportedAt)}\n> Nodes: ${nodeCount}\n> Edges: ${edgeCount}\n`;
}

/** The node table and, when there are edges, the edge table, of rows already in export order. */
export function exportTables(sortedNodes: readonly ExportNode[], sortedEdges: readonly ExportEdge[]): string {
  const out: string[] = ['\n## Nodes\n\n| URL | Title | Status | Links |\n|-----|-------|--------|-------|\n'];
  for (const node of sortedNodes) out.push(exportNodeRow(node));
  if (sortedEdges.length > 0) {
    out.push(
      '\n## Edges\n\n| From | To | Rel | Label | Anchor | Count |\n|------|----|-----|-------|--------|-------|\n',
    );
    for (const e of sortedEdges) out.push(exportEdgeRow(e));
  }
  return out.join('');
}

/** One line of the node table, newline included. */
export function exportNodeRow(node: ExportNode): string {
  return `| [${node.url}](${node.url}) | ${escapeCell(node.title)} | ${node.status} | ${node.linkCount} |\n`;
}

/** One line of the edge table, newline included. */
export function exportEdgeRow(e: ExportEdge): string {
  return `| ${e.from} | ${e.to} | ${e.rel} | ${escapeCell(e.label)} | ${e.anchor} | ${Math.max(e.count, 1)} |\n`;
}

/**
 * The partial marker: a `## Partial` section between the header and the node
 * table, one bullet per world whose rows or links this export leaves out. It
 * is made of lines every known reader skips, checked against their code:
 * the Go reference's `ParseExport` reads only `|` lines under `## Nodes` /
 * `## Edges`, and `ParseExportStrict` (client/graphstore/export.go) rejects
 * any `> ` line but Exported, Nodes and Edges and any `|` line after
 * `## Nodes` that is not a row of its table, but ignores other lines before
 * it; latebit-io/demarkus-library's `parseGraphExport` (hub.go) reads only
 * `|` lines. So neither a `> Partial:` header line nor a table would do. Each
 * bullet ends with the world's per-document bound, so a seeding broker knows
 * which of its listed documents may have lost links (docs/decisions.md,
 * 2026-12-07).
 */
function partialSection(partial: readonly PartialWorld[]): string {
  const lines = [...partial]
    .sort((a, b) => compareUtf8(a.world, b.world))
    .map(
      (p) =>
        `- ${p.world}: ${p.documentsLeftOut} documents and ${p.linksLeftOut} links left out; at most ${p.linksPerDocument} links per document\n`,
    );
  return `\n## Partial\n\n${partialPreamble}\n\n${lines.join('')}`;
}

const partialPreamble =
  "This export holds only part of these worlds, to fit Mark's 1 MiB body limit: a document or link missing here may still exist, so read the world itself before taking it as gone.";

const partialLine = /^- ([^\s:]+): /;
const partialBound = /; at most (\d+) links per document$/;

/** Title and label cells: `\` → `\\`, `|` → `\|`, newline → space. */
export function escapeCell(text: string): string {
  return text.replaceAll('\\', '\\\\').replaceAll('|', '\\|').replaceAll('\n', ' ');
}

export function unescapeCell(text: string): string {
  return text.replace(/\\(.)/gs, '$1');
}

export type ParsedExport = {
  nodes: ExportNode[];
  edges: ExportEdge[];
  /**
   * The worlds the `## Partial` section names, each with its per-document
   * bound (`PartialWorld.linksPerDocument`); none for an export that holds
   * every world whole, and for any export the Go reference wrote. A bullet
   * without a bound (written before the bound was) reads as 0: any of its
   * world's documents may have lost links, which is what the bullet meant then.
   */
  partial: Map<string, number>;
};

/**
 * ParseExport, lenient: `## Nodes` / `## Edges` switch sections, a table is a
 * run of lines starting with `|` whose first two rows (header, separator) are
 * skipped, and rows that do not fit are ignored. Edge rows have six columns or
 * the legacy two (`| From | To |`, count 1). Rows are split into cells by
 * unescaped pipes in one linear pass; on well-formed rows this accepts exactly
 * what the reference's row regexes accept.
 */
export function parseExport(body: string): ParsedExport {
  const nodes: ExportNode[] = [];
  const edges: ExportEdge[] = [];
  const partial = new Map<string, number>();
  let section: 'nodes' | 'edges' | null = null;
  // Apart from `section`, which other headings leave as it is: only the lines under `## Partial`.
  let inPartial = false;
  let tableRow = 0;
  for (const raw of body.split('\n')) {
    const line = raw.trim();
    if (line.startsWith('## ')) inPartial = line === '## Partial';
    else if (inPartial) {
      const world = partialLine.exec(line)?.[1];
      if (world !== undefined) partial.set(world, count(partialBound.exec(line)?.[1] ?? '0'));
    }
    if (line.startsWith('## Nodes') || line.startsWith('## Edges')) {
      section = line.startsWith('## Nodes') ? 'nodes' : 'edges';
      tableRow = 0;
      continue;
    }
    if (!line.startsWith('|')) {
      tableRow = 0;
      continue;
    }
    if (tableRow++ < 2 || section === null) continue;
    const cells = splitRow(line);
    if (cells === null) continue;
    if (section === 'nodes') {
      const node = nodeRow(cells);
      if (node) nodes.push(node);
    } else {
      const edge = edgeRow(cells);
      if (edge) edges.push(edge);
    }
  }
  return { nodes, edges, partial };
}

/** Cells of `| a | b |`, trimmed, or null when the row does not end with an unescaped `|`. */
function splitRow(line: string): string[] | null {
  const cells: string[] = [];
  let start = 1;
  for (let i = 1; i < line.length; i++) {
    const c = line[i];
    if (c === '\\') i++;
    else if (c === '|') {
      cells.push(line.slice(start, i).trim());
      start = i + 1;
    }
  }
  return start === line.length ? cells : null;
}

const nodeLink = /^\[[^\]]+\]\(([^)]+)\)$/;
const nonSpace = /^\S+$/;
const optionalNonSpace = /^\S*$/;
const digits = /^\d+$/;

function nodeRow(cells: string[]): ExportNode | null {
  if (cells.length !== 4) return null;
  const [link, title, status, links] = cells as [string, string, string, string];
  const url = nodeLink.exec(link)?.[1];
  if (url === undefined || !nonSpace.test(url) || !nonSpace.test(status) || !digits.test(links)) return null;
  // The link destination is the URL: the label may be stale or shortened.
  return { url, title: unescapeCell(title), status, linkCount: count(links) };
}

function edgeRow(cells: string[]): ExportEdge | null {
  if (cells.length === 2) {
    const [from, to] = cells as [string, string];
    if (!nonSpace.test(from) || !nonSpace.test(to) || from.includes('\\') || to.includes('\\')) return null;
    return { from, to, rel: '', label: '', anchor: '', count: 1 };
  }
  if (cells.length !== 6) return null;
  const [from, to, rel, label, anchor, n] = cells as [string, string, string, string, string, string];
  const simple = [from, to, rel, anchor].every((cell) => !cell.includes('\\'));
  if (
    !simple ||
    !nonSpace.test(from) ||
    !nonSpace.test(to) ||
    !optionalNonSpace.test(rel) ||
    !optionalNonSpace.test(anchor) ||
    !digits.test(n)
  )
    return null;
  return { from, to, rel, label: unescapeCell(label), anchor, count: Math.max(count(n), 1) };
}

function count(text: string): number {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : Number.MAX_SAFE_INTEGER;
}
