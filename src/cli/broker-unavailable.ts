/**
 * Whether a failed call to the broker's OAuth endpoints means the broker is
 * unavailable for now rather than that it refused: a 5xx answer (503
 * `temporarily_unavailable` with `Retry-After` while its state store is down,
 * docs/errors.md ERR_STATE_UNAVAILABLE), or no answer at all. The difference
 * decides what a person is told: a refusal (`invalid_grant`) means signing in
 * again, an outage only waiting. oauth4webapi parses an OAuth error body for
 * 4xx answers only; a 5xx becomes "unexpected HTTP response status code" with
 * the Response as its `cause`, which is where the status is read.
 */
import { fetchFailureReason, isNetworkFailure } from '../errors/fetch-failure.ts';

/** Why the broker could not answer now ("HTTP 503, retry after 5 s", "connection refused ..."), or undefined when it answered. */
export function unavailableReason(error: unknown): string | undefined {
  const response = causeResponse(error);
  if (response !== undefined && response.status >= 500) {
    const retryAfter = response.headers.get('retry-after');
    return `HTTP ${response.status}${retryAfter !== null && /^\d+$/.test(retryAfter) ? `, retry after ${retryAfter} s` : ''}`;
  }
  if (response === undefined && isNetworkFailure(error)) return fetchFailureReason(error);
  return undefined;
}

/** The HTTP response along the `cause` chain (bounded: causes can loop). */
function causeResponse(error: unknown): Response | undefined {
  let cause: unknown = error;
  for (let depth = 0; depth < 8 && typeof cause === 'object' && cause !== null; depth += 1) {
    if (cause instanceof Response) return cause;
    cause = (cause as { cause?: unknown }).cause;
  }
  return undefined;
}
