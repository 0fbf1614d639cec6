/**
 * The shared short-lived store could not answer (Redis unreachable, a command
 * timed out). Sign-in steps that need shared state turn this into `503` with
 * `Retry-After` (src/broker/http/signin/replies.ts); nothing else is implied
 * about the entry, which may or may not have been written.
 */
import { CodedError } from '../../errors/coded-error.ts';

export class StateUnavailableError extends CodedError<'ERR_STATE_UNAVAILABLE'> {
  /** How long a client should wait before trying again, in whole seconds. */
  readonly retryAfterSeconds: number;
  constructor(message: string, options: { cause?: unknown; retryAfterSeconds?: number } = {}) {
    super('ERR_STATE_UNAVAILABLE', message, options);
    this.retryAfterSeconds = options.retryAfterSeconds ?? 2;
  }
}

export function isStateUnavailable(error: unknown): error is StateUnavailableError {
  return error instanceof StateUnavailableError;
}
