import { WorldGatewayError } from '../worlds/gateway.ts';
import type { ToolResult } from './definitions.ts';
import { goQuote } from './go-format.ts';

/**
 * Two kinds of answer (go-broker-inventory §4.2): a world's own status
 * (`not-found`, `conflict`, `not-permitted`, ...) is a normal result the agent
 * reads; only a failure to get an answer at all (bad input, unknown world,
 * transport, denied write) is a tool error.
 */
export function textResult(text: string): ToolResult {
  return { text };
}

export function toolError(text: string): ToolResult {
  return { text, isError: true };
}

/** The reference's unknown-world text (`errWorldNotFound`). */
export function unknownWorldText(world: string): string {
  return `broker: unknown world ${goQuote(world)} (not in broker config)`;
}

/**
 * The reference's `toolErrorFor(verb, world, err)`: known gateway refusals get
 * their own sentence, everything else `<verb> failed: <message>`. Only our own
 * errors (a stable `ERR_*` code) are worded for agents; anything else is a bug
 * whose text stays in the logs, and the agent reads `internal error`.
 */
export function toolErrorText(verb: string, world: string, error: unknown): string {
  if (error instanceof WorldGatewayError) {
    switch (error.code) {
      case 'ERR_WORLD_NOT_FOUND':
        return unknownWorldText(error.world || world);
      case 'ERR_WRITE_DENIED':
        return `write access denied for world ${goQuote(world)}`;
      case 'ERR_EMAIL_UNVERIFIED':
        return 'identity email is not verified';
      default:
        return `${verb} failed: ${error.message}`;
    }
  }
  return `${verb} failed: ${agentMessage(error)}`;
}

/** The message of one of our own errors, or a neutral word for anything else. */
export function agentMessage(error: unknown): string {
  if (error instanceof Error && error.name === 'AbortError') return 'request cancelled';
  const code = (error as { code?: unknown } | null)?.code;
  if (error instanceof Error && typeof code === 'string' && code.startsWith('ERR_')) return error.message;
  return 'internal error';
}

/** An explanation we wrote ourselves (a world's status, a malformed answer), safe to show the agent. */
export class ToolStepError extends Error {
  readonly code = 'ERR_TOOL_STEP';
}

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
