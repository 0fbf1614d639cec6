import { defineTool } from '../run-tool.ts';
import { linkGraph } from '../tool-input.ts';
import { structuredResult } from '../tool-result.ts';
import { graphShape, graphData } from '../structured.ts';

/** mark_graph_export: the whole link graph as a `/graph.md` document. */
export const markGraphExport = defineTool({
  name: 'mark_graph_export',
  title: 'Export the link graph',
  description:
    "Return the broker's whole link graph as a /graph.md markdown document (node table: URL, title, status, link count; edge table: from, to, relation, label, anchor, count). Read-only; use mark_graph_publish to store it in a world.",
  inputSchema: {},
  outputSchema: graphShape,
  readOnly: true,
  openWorld: false,
  handler: async (_args, ctx) => {
    const graph = linkGraph(ctx);
    if (!graph.ok) return graph.error;
    const { store } = graph.value;
    return structuredResult(
      graph.value.exportMarkdown(),
      graphData(store.nodes(), store.edges(), (url) => store.provenance(url)),
    );
  },
});
