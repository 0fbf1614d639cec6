import type { ServerResponse } from 'node:http';
import type { Identity } from '../identity.ts';
import { whenClosed } from './response-closed.ts';

/** setTimeout's longest delay (2^31 - 1 ms, about 24.8 days); a longer one fires at once (Node's TimeoutOverflowWarning). */
const longestTimerMs = 2 ** 31 - 1;

/**
 * A signal that aborts when the bearer that opened a long-lived stream is no
 * longer accepted (`Identity.acceptedUntil`), for the stream served on `res`:
 * the stream is authorised once, when it opens, so it must not outlive the
 * token (docs/security.md, "Long-lived streams"). One timer per stream,
 * cleared when the response closes; undefined for an identity with no expiry.
 */
export function expirySignal(
  res: ServerResponse,
  identity: Identity,
  now: () => number = Date.now,
): AbortSignal | undefined {
  const until = identity.acceptedUntil;
  if (until === undefined) return undefined;
  const expired = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const left = until - now();
    if (left <= 0) return expired.abort();
    // A token living longer than the longest delay is looked at again then.
    timer = setTimeout(arm, Math.min(left, longestTimerMs));
    // The stream's socket keeps the process up while it is open; the timer alone should not.
    timer.unref();
  };
  arm();
  whenClosed(res, () => clearTimeout(timer));
  return expired.signal;
}
