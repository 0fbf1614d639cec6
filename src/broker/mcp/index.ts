/** The broker's MCP surface, SDK-neutral: tools, resources and prompts, plus the helpers the HTTP layer registers them with. */
export type * from './definitions.ts';
export { allTools, graphTools } from './tools/index.ts';
export { defaultGraphRetention } from './tools/graph-publish.ts';
export { runTool, defineTool } from './run-tool.ts';
export {
  documentTemplate,
  worldIndexResources,
  knowledgeResources,
  readDocument,
  ResourceReadError,
  markdownMimeType,
} from './resources.ts';
export {
  allPrompts,
  orientPrompt,
  publishPrompt,
  recallPrompt,
  whatsNewPrompt,
  PromptArgumentError,
} from './prompts.ts';
export { formatToolResult, formatToolResultWith } from './format-tool-result.ts';
export { parseToolUrl, cutAnchor, ToolUrlError, type ToolUrl } from './tool-url.ts';
