import { exportEdgeRow, exportHeader, exportNodeRow, exportTables } from './graph-export.ts';
import { compareEdges, compareUtf8, type GraphEdge, type GraphNode } from './model.ts';
import { bodyLimitText } from '../../protocol/limits.ts';

/**
 * Bytes of table rows one mark_graph_export answer holds, as mark_diff cuts its patch at 64 KiB
 * (src/broker/mcp/version-diff.ts): the store may hold 50,000 nodes and 100,000 edges
 * (graph-bounds.ts), and 12,000 edges alone made a 3.6 MB answer plus 4 MB of structuredContent.
 */
export const exportPageRowBytes = 64 * 1024;

/**
 * One page of the `/graph.md` export. Rows are the node table's and then the edge table's, each in
 * export order (nodes by URL, edges by from, to, relation), and `offset` counts them in that order.
 */
export type ExportPage = {
  /**
   * The whole `/graph.md` export (buildExport) when the page holds every row; otherwise the export's
   * header with the whole graph's counts, the tables holding only the page's rows, and a closing
   * `## Page` section saying which rows these are and how to get the others.
   */
  text: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  nodeCount: number;
  edgeCount: number;
  offset: number;
  /** The offset of the first row after this page; undefined when the page reaches the last row. */
  nextOffset: number | undefined;
};

/** The rows of one page before rendering: `end` is the offset after its last row; the counts are the graph's. */
export type PageRows = {
  nodes: GraphNode[];
  edges: GraphEdge[];
  nodeCount: number;
  edgeCount: number;
  offset: number;
  end: number;
};

/**
 * The rows from `offset` while they fit `maxRowBytes` (at least one, so every call moves on), for
 * `renderExportPage` once the caller has dropped those it may not show (`showingOnly`). The graph
 * is read afresh at each call, so a crawl between two calls may shift rows between pages.
 */
export function exportPageRows(
  nodes: Iterable<GraphNode>,
  edges: Iterable<GraphEdge>,
  offset: number,
  maxRowBytes: number = exportPageRowBytes,
): PageRows {
  const sortedNodes = [...nodes].sort((a, b) => compareUtf8(a.url, b.url));
  const sortedEdges = [...edges].sort(compareEdges);
  const nodeCount = sortedNodes.length;
  const edgeCount = sortedEdges.length;
  const total = nodeCount + edgeCount;
  const rowBytes = (row: number): number =>
    Buffer.byteLength(
      row < nodeCount ? exportNodeRow(sortedNodes[row]!) : exportEdgeRow(sortedEdges[row - nodeCount]!),
    );
  let end = Math.min(offset, total);
  let bytes = 0;
  while (end < total) {
    bytes += rowBytes(end);
    if (bytes > maxRowBytes && end > offset) break;
    end += 1;
  }
  const pageNodes = sortedNodes.slice(Math.min(offset, nodeCount), Math.min(end, nodeCount));
  const pageEdges = sortedEdges.slice(Math.max(offset - nodeCount, 0), Math.max(end - nodeCount, 0));
  return { nodes: pageNodes, edges: pageEdges, nodeCount, edgeCount, offset, end };
}

/**
 * The page without the rows `shows` refuses. A page holding the whole graph stays whole, its
 * counts those of the rows kept; a partial page keeps the graph's counts and offsets, so paging
 * goes on where it would have.
 */
export function showingOnly(
  rows: PageRows,
  shows: { node: (node: GraphNode) => boolean; edge: (edge: GraphEdge) => boolean },
): PageRows {
  const nodes = rows.nodes.filter(shows.node);
  const edges = rows.edges.filter(shows.edge);
  if (!isWholeGraph(rows)) return { ...rows, nodes, edges };
  return {
    nodes,
    edges,
    nodeCount: nodes.length,
    edgeCount: edges.length,
    offset: 0,
    end: nodes.length + edges.length,
  };
}

function isWholeGraph(rows: PageRows): boolean {
  return rows.offset === 0 && rows.end === rows.nodeCount + rows.edgeCount;
}

/** The page as mark_graph_export answers it (see ExportPage). */
export function renderExportPage(
  exportedAt: Date,
  rows: PageRows,
  maxRowBytes: number = exportPageRowBytes,
): ExportPage {
  const { nodes, edges, nodeCount, edgeCount, offset, end } = rows;
  const nextOffset = end < nodeCount + edgeCount ? end : undefined;
  const page = { nodes, edges, nodeCount, edgeCount, offset, nextOffset };
  const header = exportHeader(exportedAt, nodeCount, edgeCount);
  if (isWholeGraph(rows)) return { ...page, text: header + exportTables(nodes, edges) };
  return {
    ...page,
    text: header + exportTables(nodes, edges) + pageSection(offset, end, nodeCount, edgeCount, maxRowBytes),
  };
}

/** Which rows the page holds, how many it leaves out, and how to read the rest. */
function pageSection(offset: number, end: number, nodeCount: number, edgeCount: number, maxRowBytes: number): string {
  const total = nodeCount + edgeCount;
  const rows = `${total} rows (${nodeCount} nodes, then ${edgeCount} edges)`;
  if (offset >= total)
    return `\n## Page\n\nNo rows from offset ${offset}: the graph holds ${rows}. Call mark_graph_export with a smaller offset (0 for the first page).\n`;
  const next =
    end < total
      ? `Call mark_graph_export with offset ${end} for the next rows.`
      : 'These are the last rows; offset 0 reads the first.';
  return (
    `\n## Page\n\nThis answer lists rows ${offset + 1} to ${end} of the graph's ${rows}, at most ${maxRowBytes / 1024} KiB of rows per answer: ${total - (end - offset)} rows are left out. ${next} ` +
    `mark_graph_publish stores the whole graph as one document when it fits Mark's ${bodyLimitText} body limit; mark_explore and mark_backlinks answer for one document.\n`
  );
}
