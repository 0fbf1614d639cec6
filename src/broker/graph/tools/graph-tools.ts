import type { z } from 'zod';
import type { ToolDefinition } from '../../mcp/definitions.ts';
import type { BrokerGraph } from '../graph-service.ts';
import { markBacklinks } from './mark-backlinks.ts';
import { markGraph } from './mark-graph.ts';
import { markGraphExport } from './mark-graph-export.ts';
import { markGraphPublish } from './mark-graph-publish.ts';

/** The graph tools, in the reference's mcpToolNames order, all backed by one BrokerGraph. */
export function graphTools(graph: BrokerGraph): ToolDefinition[] {
  return [
    erase(markBacklinks(graph)),
    erase(markGraph(graph)),
    erase(markGraphExport(graph)),
    erase(markGraphPublish(graph)),
  ];
}

// A list of tools with different argument shapes; the MCP layer validates
// arguments against each tool's own schema before its handler runs.
function erase<S extends z.ZodRawShape>(tool: ToolDefinition<S>): ToolDefinition {
  return tool as unknown as ToolDefinition;
}
