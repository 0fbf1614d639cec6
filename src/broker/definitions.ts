import { allPrompts, allTools, documentTemplate, worldIndexResources } from './mcp/index.ts';
import type { McpDefinitions } from './http/register-definitions.ts';
import type { WorldGateway } from './worlds/gateway.ts';

/** Everything the broker's MCP server offers, bound to the live world list. */
export function brokerDefinitions(gateway: WorldGateway): McpDefinitions {
  return {
    tools: allTools(),
    resourceTemplates: [documentTemplate],
    resources: () => worldIndexResources(gateway.list()),
    prompts: allPrompts(),
  };
}
