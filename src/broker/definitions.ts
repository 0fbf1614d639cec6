import { allPrompts, allTools, documentTemplate, worldIndexResources } from './mcp/index.ts';
import type { McpDefinitions } from './http/register-definitions.ts';
import type { WorldGateway } from './worlds/gateway.ts';
import { graphTools, type BrokerGraph } from './graph/index.ts';

/**
 * Everything the broker's MCP server offers, bound to the live world list: the
 * gateway tools in the reference order, then the graph tools (when the broker
 * runs a graph), the document resources and the prompts.
 */
export function brokerDefinitions(gateway: WorldGateway, graph?: BrokerGraph): McpDefinitions {
  return {
    tools: withGraphTools(allTools(), graph),
    resourceTemplates: [documentTemplate],
    resources: () => worldIndexResources(gateway.list()),
    prompts: allPrompts(),
  };
}

/** The reference broker lists the graph tools right after mark_index, before mark_worlds. */
function withGraphTools(
  tools: ReturnType<typeof allTools>,
  graph: BrokerGraph | undefined,
): ReturnType<typeof allTools> {
  if (graph === undefined) return tools;
  const at = tools.findIndex((tool) => tool.name === 'mark_index') + 1;
  return [...tools.slice(0, at), ...graphTools(graph), ...tools.slice(at)];
}
