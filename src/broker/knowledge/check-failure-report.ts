import type { StandardLog } from './publishing-standard.ts';

/**
 * What the broker does when a check of a world document (world.md, the hub's
 * standard) fails: counts it (metric `broker_knowledge_check_failures_total`,
 * docs/operations.md) and logs a warning, at most one per document per
 * `intervalMs`, so a hub that is down for an hour does not write a line on
 * every revalidation of every document. The line names the world, the path
 * and the reason the transport or the world gave (a status or a connection
 * error: never a token), and how many failures it stands for.
 */
export type CheckFailureReportOptions = {
  log: StandardLog;
  count: (world: string, path: string) => void;
  intervalMs?: number;
  now?: () => number;
};

export function checkFailureReport(options: CheckFailureReportOptions) {
  const intervalMs = options.intervalMs ?? 60_000;
  const now = options.now ?? Date.now;
  // Keyed by world and path: both come from configuration and code, never from callers.
  const logged = new Map<string, { at: number; since: number }>();
  return (world: string, path: string, reason: string): void => {
    options.count(world, path);
    const key = `${world}\n${path}`;
    const last = logged.get(key);
    const at = now();
    if (last !== undefined && at - last.at < intervalMs) {
      last.since += 1;
      return;
    }
    logged.set(key, { at, since: 0 });
    options.log.warn(
      { world, path, reason, failures: 1 + (last?.since ?? 0) },
      'a world document could not be checked: the copy held, if any, is kept',
    );
  };
}
