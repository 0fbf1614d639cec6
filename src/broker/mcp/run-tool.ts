import { z } from 'zod';
import type { ToolContext, ToolDefinition, ToolResult } from './definitions.ts';
import { toolError, toolErrorText } from './tool-result.ts';

/**
 * A tool with a concrete argument shape, widened for the registry. The handler
 * only ever receives arguments parsed with its own `inputSchema` (by `runTool`
 * or by the SDK), which is what makes the widening sound.
 */
export function defineTool<Shape extends z.ZodRawShape>(definition: ToolDefinition<Shape>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

/**
 * Validates raw JSON arguments against the tool's schema and runs it. Schema
 * fields carry the reference broker's messages (`url is required`, ...), so
 * the first problem found becomes that tool error; an exception that escapes a
 * handler becomes `<tool> failed: ...` rather than a protocol error.
 */
export async function runTool(definition: ToolDefinition, rawArgs: unknown, ctx: ToolContext): Promise<ToolResult> {
  const parsed = z.object(definition.inputSchema).safeParse(rawArgs ?? {});
  if (!parsed.success) return toolError(firstIssueMessage(parsed.error));
  try {
    return await definition.handler(parsed.data, ctx);
  } catch (error) {
    return toolError(toolErrorText(definition.name.replace(/^mark_/, ''), '', error));
  }
}

function firstIssueMessage(error: z.ZodError): string {
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid arguments';
  // Our schemas set a message on every field; zod's own text is a fallback only.
  return issue.message;
}
