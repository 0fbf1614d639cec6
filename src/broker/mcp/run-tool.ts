import { z } from 'zod';
import { errorWithCode } from '../../errors/coded-error.ts';
import { WorldGatewayError } from '../worlds/gateway.ts';
import type { ToolContext, ToolDefinition, ToolResult } from './definitions.ts';
import { toolError, toolErrorText } from './tool-result.ts';

/**
 * A tool with a concrete argument shape, widened for the registry. The handler
 * only ever receives arguments parsed with its own `inputSchema` (by
 * `callTool`), which is what makes the widening sound.
 */
export function defineTool<Shape extends z.ZodRawShape>(definition: ToolDefinition<Shape>): ToolDefinition {
  return definition as unknown as ToolDefinition;
}

/** How a call ended, for metrics: a normal answer, a tool error, or an exception the tool did not handle. */
export type ToolOutcome = 'ok' | 'tool_error' | 'exception';

export type ToolCallOptions = {
  /** Where unexpected failures go; the agent only reads `<verb> failed: internal error`. */
  logError?: (error: unknown, message: string) => void;
};

// A server is built per session and per stateless request: build each tool's schema once.
const inputSchemas = new WeakMap<ToolDefinition, z.ZodObject>();

/**
 * The zod object for a tool's argument shape, built once per tool. Strict: an argument the tool does not
 * take is refused, not dropped, since a dropped one is a request silently not honoured (mark_search's
 * `worlds` searched every world); tools/list then shows `additionalProperties: false` (docs/decisions.md).
 */
export function inputSchemaOf(tool: ToolDefinition): z.ZodObject {
  let schema = inputSchemas.get(tool);
  if (schema === undefined) {
    schema = z.strictObject(tool.inputSchema);
    inputSchemas.set(tool, schema);
  }
  return schema;
}

/**
 * The one way a tool runs, in production (src/broker/http/register-definitions.ts)
 * and in tests: validate the raw JSON arguments against the tool's schema, run
 * the handler, and turn an exception that escapes it into a tool error. Schema
 * fields carry the reference broker's messages (`url is required`, ...), so the
 * first problem found becomes that tool error; an escaped exception reads like
 * the failures handlers report themselves (`<verb> failed: ...`).
 */
export async function callTool(
  definition: ToolDefinition,
  rawArgs: unknown,
  ctx: ToolContext,
  options: ToolCallOptions = {},
): Promise<{ result: ToolResult; outcome: ToolOutcome }> {
  const parsed = inputSchemaOf(definition).safeParse(rawArgs ?? {});
  if (!parsed.success) return { result: toolError(firstIssueMessage(definition, parsed.error)), outcome: 'tool_error' };
  try {
    const result = await definition.handler(parsed.data, ctx);
    if (result.isError === true) return { result, outcome: 'tool_error' };
    checkStructured(definition, result);
    return { result, outcome: 'ok' };
  } catch (error) {
    if (!(error instanceof WorldGatewayError)) options.logError?.(error, `tool ${definition.name} failed unexpectedly`);
    return { result: toolError(toolErrorText(verbOf(definition.name), '', error)), outcome: 'exception' };
  }
}

const outputSchemas = new WeakMap<ToolDefinition, z.ZodObject>();

/** The zod object for a tool's output shape, built once per tool; undefined for a tool without one. */
export function outputSchemaOf(tool: ToolDefinition): z.ZodObject | undefined {
  if (tool.outputSchema === undefined) return undefined;
  let schema = outputSchemas.get(tool);
  if (schema === undefined) {
    schema = z.object(tool.outputSchema);
    outputSchemas.set(tool, schema);
  }
  return schema;
}

/** A tool that declares an outputSchema must answer in it (MCP tools, "Output Schema"); anything else is our bug. */
export class StructuredOutputError extends errorWithCode('ERR_STRUCTURED_OUTPUT') {}

function checkStructured(definition: ToolDefinition, result: ToolResult): void {
  const schema = outputSchemaOf(definition);
  if (schema === undefined) return;
  const checked = schema.safeParse(result.structured);
  if (!checked.success)
    throw new StructuredOutputError(`${definition.name} answered outside its outputSchema`, { cause: checked.error });
}

/** `callTool`'s result alone: what the agent reads. */
export async function runTool(
  definition: ToolDefinition,
  rawArgs: unknown,
  ctx: ToolContext,
  options: ToolCallOptions = {},
): Promise<ToolResult> {
  return (await callTool(definition, rawArgs, ctx, options)).result;
}

/** `mark_fetch` fails as `fetch failed: ...`, as the reference words it. */
function verbOf(toolName: string): string {
  return toolName.replace(/^mark_/, '');
}

function firstIssueMessage(definition: ToolDefinition, error: z.ZodError): string {
  // An unknown name first: it usually explains a missing one (`URL` for `url`), and zod lists it last.
  const unknown = error.issues.find((issue) => issue.code === 'unrecognized_keys' && issue.path.length === 0);
  if (unknown?.code === 'unrecognized_keys') return unknownArguments(definition, unknown.keys);
  const issue = error.issues[0];
  if (issue === undefined) return 'invalid arguments';
  // Our schemas set a message on every field; zod's own text is a fallback only.
  return issue.message;
}

/** `unknown argument \`worlds\`; mark_search takes query, world, ...`: what was refused and what to send instead. */
function unknownArguments(definition: ToolDefinition, keys: readonly string[]): string {
  const named = keys.map((key) => `\`${key}\``).join(', ');
  const taken = Object.keys(definition.inputSchema);
  const takes = taken.length === 0 ? 'takes no arguments' : `takes ${taken.join(', ')}`;
  return `unknown argument${keys.length === 1 ? '' : 's'} ${named}; ${definition.name} ${takes}`;
}
