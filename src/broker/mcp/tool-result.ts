import { codeOf, errorWithCode } from '../../errors/coded-error.ts';
import { WorldGatewayError, type WorldInfo } from '../worlds/gateway.ts';
import { knownWorldsHint } from '../worlds/world-aliases.ts';
import type { ToolResult } from './definitions.ts';
import { goQuote } from './go-format.ts';

/**
 * Two kinds of answer (Go broker `formatToolResult`): a world's own status
 * (`not-found`, `conflict`, `not-permitted`, ...) is a normal result the agent
 * reads; only a failure to get an answer at all (bad input, unknown world,
 * transport, denied write) is a tool error.
 */
export function textResult(text: string): ToolResult {
  return { text };
}

/** The reference text, and the same answer as data for the tool's outputSchema. */
export function structuredResult(text: string, structured: Record<string, unknown>): ToolResult {
  return { text, structured };
}

export function toolError(text: string): ToolResult {
  return { text, isError: true };
}

/** The reference's unknown-world text (`errWorldNotFound`), naming the worlds there are. */
export function unknownWorldText(world: string, worlds: readonly WorldInfo[]): string {
  return `broker: unknown world ${goQuote(world)} (not in broker config; ${knownWorldsHint(worlds)})`;
}

/**
 * The Go broker's `toolErrorFor(verb, world, err)`: known gateway refusals get
 * their own sentence, everything else `<verb> failed: <public message>`.
 */
export function toolErrorText(verb: string, world: string, error: unknown): string {
  switch (codeOf(error)) {
    case 'ERR_WORLD_NOT_FOUND':
      // The gateway's own sentence names the known worlds.
      return (error as WorldGatewayError).message;
    case 'ERR_WRITE_DENIED':
      return `write access denied for world ${goQuote(world)}`;
    case 'ERR_EMAIL_UNVERIFIED':
      return 'identity email is not verified';
    case 'ERR_WRITE_READ_PROTECTED':
      return (error as Error).message;
    default:
      return `${verb} failed: ${agentMessage(error)}`;
  }
}

/**
 * Codes whose message we word for the agent and build only from what the
 * agent already knows or may know (world names, paths, a world's own status
 * and text), never addresses, file paths, library text or secrets. Every other
 * error, coded or not, reads as `internal error`; its detail stays in the logs.
 * docs/errors.md lists these as the MCP tool surface.
 */
export const agentVisibleCodes: ReadonlySet<string> = new Set([
  'ERR_WORLD_NOT_FOUND',
  'ERR_WORLD_UNAVAILABLE',
  'ERR_WRITE_DENIED',
  'ERR_EMAIL_UNVERIFIED',
  'ERR_WRITE_READ_PROTECTED',
  'ERR_OUTCOME_UNKNOWN',
  'ERR_WRITE_TOKEN_REJECTED',
  'ERR_WRITE_TOKEN_UNAVAILABLE',
  'ERR_TOOL_STEP',
  'ERR_INVALID_TOOL_URL',
  'ERR_INVALID_MARK_URL',
  'ERR_MALFORMED_LOOKUP',
  'ERR_MALFORMED_VERSIONS',
  'ERR_WORLD_SEARCH',
  'ERR_INDEX_CRAWL',
  'ERR_RESOURCE_READ',
  'ERR_PROMPT_ARGUMENT',
  'ERR_HUB_NOT_CONFIGURED',
]);

/** The public message of an error: its own for an allowlisted code, a neutral word for anything else. */
export function agentMessage(error: unknown): string {
  if (error instanceof Error && error.name === 'AbortError') return 'request cancelled';
  const code = codeOf(error);
  if (code !== undefined && agentVisibleCodes.has(code)) return (error as Error).message;
  return 'internal error';
}

/** An explanation we wrote ourselves (a world's status, a malformed answer), safe to show the agent. */
export class ToolStepError extends errorWithCode('ERR_TOOL_STEP') {}

export function toolErrorFor(verb: string, world: string, error: unknown): ToolResult {
  return toolError(toolErrorText(verb, world, error));
}

/** True when the error means the world does not exist for this broker (as opposed to being unreachable). */
export function isUnknownWorld(error: unknown): boolean {
  return error instanceof WorldGatewayError && error.code === 'ERR_WORLD_NOT_FOUND';
}

/** A lost write answer: the world may or may not have applied it (never resend; reconcile by reading). */
export function isOutcomeUnknown(error: unknown): boolean {
  return error instanceof WorldGatewayError && error.code === 'ERR_OUTCOME_UNKNOWN';
}
