/**
 * The answers the listener sends on its own when the application cannot: the
 * request was over its rate budget, or the handler failed. Mark SPEC §3: a refused
 * request still receives a real, parseable response. The bytes follow Mark SPEC §5
 * error framing (`handler.writeError`): status block, then "\n# <Title>\n\n<message>\n".
 */
import { Status, statusTitle } from '../protocol/status.ts';

/** Frames an error response whose status is a plain YAML word (every Mark status is). */
export function errorResponseBytes(status: Status, message: string): Uint8Array {
  return new TextEncoder().encode(`---\nstatus: ${status}\n---\n\n# ${statusTitle(status)}\n\n${message}\n`);
}

/** Fresh bytes on every call: a caller may mutate what it gets. */
export function rateLimitedResponse(): Uint8Array {
  return errorResponseBytes(Status.RateLimited, 'rate limit exceeded');
}

export function internalErrorResponse(): Uint8Array {
  return errorResponseBytes(Status.ServerError, 'internal error');
}
