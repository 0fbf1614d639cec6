/** Shared timing helpers for the benchmarks: sequential latency runs and percentiles. */

export type LatencyResult = {
  name: string;
  operations: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
};

export function percentile(sorted: readonly number[], fraction: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** Runs `operation` `count` times one after another (after `warmup` runs) and reports rate and latency. */
export async function measureSequential(
  name: string,
  count: number,
  operation: (i: number) => Promise<unknown>,
  warmup = 20,
): Promise<LatencyResult> {
  for (let i = 0; i < warmup; i++) await operation(-1 - i);
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const begun = performance.now();
    await operation(i);
    latencies.push(performance.now() - begun);
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    name,
    operations: count,
    perSecond: count / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}

export function formatLatency(result: LatencyResult): string {
  return `${result.name.padEnd(48)} ${result.perSecond.toFixed(0).padStart(7)}/s   p50 ${result.p50Ms.toFixed(3)} ms   p99 ${result.p99Ms.toFixed(3)} ms`;
}

export function ratio(value: number, baseline: number): string {
  return (value / baseline).toFixed(3);
}

/**
 * The median: the middle value, or the mean of the two middle values of an even
 * count (benches take it over 2, 4 or 6 alternated rounds, where the nearest-rank
 * p50 would be the lower middle and bias every such figure down).
 */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  if (sorted.length % 2 === 1) return sorted[middle] as number;
  return sorted.length === 0 ? Number.NaN : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}
