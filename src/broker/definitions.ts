import { allPrompts, allTools, documentTemplate, knowledgeResources, worldIndexResources } from './mcp/index.ts';
import type { KnowledgeServices } from './mcp/index.ts';
import type { McpDefinitions } from './http/register-definitions.ts';
import type { WorldGateway } from './worlds/gateway.ts';

/**
 * Everything the broker's MCP server offers, bound to the live world list: the
 * tools (the graph tools too when the broker keeps a link graph, which reaches
 * them through the tool context), the document resources and the prompts.
 */
export function brokerDefinitions(
  gateway: WorldGateway,
  options: { graph?: boolean; knowledge?: KnowledgeServices } = {},
): McpDefinitions {
  const { knowledge } = options;
  return {
    tools: allTools(options),
    resourceTemplates: [documentTemplate],
    resources: () => [
      ...worldIndexResources(gateway.list()),
      ...(knowledge ? knowledgeResources(gateway.list(), knowledge.standard.hub) : []),
    ],
    prompts: allPrompts(),
  };
}
