import { optionalInteger } from '../args.ts';
import { defineTool } from '../run-tool.ts';
import { linkGraph } from '../tool-input.ts';
import { structuredResult } from '../tool-result.ts';
import { exportGraphShape, graphData } from '../structured.ts';
import { exportPageRowBytes } from '../../graph/index.ts';
import { bodyLimitText } from '../../../protocol/limits.ts';
import { describe } from './descriptions.ts';
import { uncheckedNote } from './backlinks.ts';

/**
 * mark_graph_export: the link graph as a `/graph.md` document, a page of at most
 * `exportPageRowBytes` of rows at a time (src/broker/graph/export-page.ts, docs/decisions.md 2026-12-07).
 */
export const markGraphExport = defineTool({
  name: 'mark_graph_export',
  title: 'Export the link graph',
  description: describe(
    "Return the broker's link graph as a /graph.md markdown document (node table: URL, title, status, link count; edge table: from, to, relation, label, anchor, count), without the rows of documents you may not read now. Read-only.",
    `Paged: an answer holds at most ${exportPageRowBytes / 1024} KiB of table rows (nodes first, then edges); a larger graph is answered in pages, each closing with a "## Page" section that says which rows it lists, how many it leaves out and the offset of the next page (next_offset in structuredContent, which holds the same page).`,
    `Use mark_graph_publish to store the whole graph in a world when it fits a Mark document (${bodyLimitText}).`,
  ),
  inputSchema: {
    offset: optionalInteger(
      'offset',
      "rows to skip, counting the nodes and then the edges in the tables' order (default 0); each page names the next offset",
      { min: 0, max: Number.MAX_SAFE_INTEGER },
    ),
  },
  outputSchema: exportGraphShape,
  readOnly: true,
  openWorld: false,
  handler: async (args, ctx) => {
    const graph = linkGraph(ctx);
    if (!graph.ok) return graph.error;
    // Without the rows of documents the caller may not read now (src/broker/graph/read-check.ts).
    const page = await graph.value.readableExportPage(args.offset ?? 0, ctx.gateway, ctx.signal);
    const { store } = graph.value;
    return structuredResult(page.text + (page.unchecked > 0 ? `\n${uncheckedNote('rows')}` : ''), {
      ...graphData(page.nodes, page.edges, (url) => store.provenance(url)),
      node_count: page.nodeCount,
      edge_count: page.edgeCount,
      offset: page.offset,
      ...(page.nextOffset === undefined ? {} : { next_offset: page.nextOffset }),
    });
  },
});
