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
    tools: [...allTools(), ...(graph ? graphTools(graph) : [])],
    resourceTemplates: [documentTemplate],
    resources: () => worldIndexResources(gateway.list()),
    prompts: allPrompts(),
  };
}
