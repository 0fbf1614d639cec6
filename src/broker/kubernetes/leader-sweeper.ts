/**
 * As the Go broker's `sweeper.go`: only the replica holding the Lease sweeps; it runs one pass
 * as soon as it leads, then one every `interval`, and stops when leadership
 * ends. A failed pass is reported and the next one runs on schedule.
 */
import { systemClock, type Clock } from './clock.ts';
import type { LeaseElector } from './lease-elector.ts';

export type LeaderSweeper = {
  elector: LeaseElector;
  /** `sweeper.interval`. */
  intervalMs: number;
  /** One pass (delete expired refresh tokens, ...); gets the leadership signal. */
  sweep: (leadership: AbortSignal) => Promise<void>;
  onError?: (error: unknown) => void;
  clock?: Clock;
};

/** Runs until `signal` aborts; resolves once the Lease is released. */
export async function runLeaderSweeper(signal: AbortSignal, options: LeaderSweeper): Promise<void> {
  const clock = options.clock ?? systemClock;
  await options.elector.run(signal, async (leadership) => {
    while (!leadership.aborted) {
      try {
        await options.sweep(leadership);
      } catch (error) {
        // A pass cut short because leadership ended is not a failure to report.
        if (!leadership.aborted) options.onError?.(error);
      }
      try {
        await clock.sleep(options.intervalMs, leadership);
      } catch {
        return;
      }
    }
  });
}
