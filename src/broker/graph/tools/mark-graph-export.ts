import type { ToolDefinition } from '../../mcp/definitions.ts';
import type { BrokerGraph } from '../graph-service.ts';

const shape = {};

/** mark_graph_export (go-broker-inventory §5.6): the whole store as a `/graph.md` document. */
export function markGraphExport(graph: BrokerGraph): ToolDefinition<typeof shape> {
  return {
    name: 'mark_graph_export',
    title: 'Export the link graph',
    description:
      "Return the broker's whole link graph as a /graph.md markdown document (node table: URL, title, status, link count; edge table: from, to, relation, label, anchor, count). Read-only; use mark_graph_publish to store it in a world.",
    inputSchema: shape,
    readOnly: true,
    async handler() {
      return { text: graph.exportMarkdown() };
    },
  };
}
