/**
 * A background failure that repeats on every retry (a Lease the broker may
 * not read answers 403 every 2 s) reported at most once per interval: the
 * first at once, then the next one due, saying how many went unreported
 * since (the error itself is kept as `cause`).
 */
import { systemClock, type Clock } from './clock.ts';

export function rateLimitedReport(
  report: (error: unknown) => void,
  intervalMs: number,
  clock: Clock = systemClock,
): (error: unknown) => void {
  let lastAt = Number.NEGATIVE_INFINITY;
  let unreported = 0;
  return (error) => {
    const now = clock.now();
    if (now - lastAt < intervalMs) {
      unreported++;
      return;
    }
    lastAt = now;
    const detail = error instanceof Error ? error.message : String(error);
    report(
      unreported === 0
        ? error
        : new Error(`${detail} (and ${unreported} more since the last report)`, { cause: error }),
    );
    unreported = 0;
  };
}
