import type { MarkResponse } from '../../../protocol/response.ts';
import type { ToolResult } from '../../mcp/definitions.ts';
import { formatToolResult as formatWithKeys } from '../../mcp/format-tool-result.ts';
import { toolError, toolErrorFor, unknownWorldText } from '../../mcp/tool-result.ts';

/** The graph tools speak with the same texts as the other tools: these are the MCP module's. */
export { toolError };

export function formatToolResult(response: MarkResponse, ...keys: string[]): string {
  return formatWithKeys(response, keys);
}

export function gatewayFailure(verb: string, world: string, error: unknown): ToolResult {
  return toolErrorFor(verb, world, error);
}

export function unknownWorld(world: string): ToolResult {
  return toolError(unknownWorldText(world));
}
