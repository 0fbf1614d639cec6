/**
 * Sequential echo round trips: bare @matrixai/quic (one client connection, a new
 * stream per request, no pool, no framing) against our MarkTransportClient and
 * startMarkListener, measured in the same run so the ratio is what matters.
 * Run directly: `node bench/quic-echo.ts [requests] [payloadBytes]`.
 *
 * `node bench/quic-echo.ts --against <tree> [rounds] [requests]` compares instead
 * our transport in this checkout with the one in another checkout of the
 * project (its own node_modules): each round runs one process per tree, in
 * alternating order, each timing `requests` sequential 100-byte echoes after
 * a warm-up and reporting its CPU time per echo and its heap after a full
 * collection. Separate processes, because a change to what a request leaves
 * behind (timers, listeners, garbage) would otherwise burden both trees in
 * the one heap and timer list they share.
 */
import { execFileSync } from 'node:child_process';
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { echo, startBarePair, startTransportPair } from './lib/quic-pairs.ts';
import type { Exchange, QuicPair } from './lib/quic-pairs.ts';
import { median, percentile } from './lib/measure.ts';

export interface EchoBenchOptions {
  requests: number;
  payloadBytes: number;
  /** Round trips before measuring; default 20. */
  warmup?: number;
}

export interface EchoBenchResult {
  name: string;
  requests: number;
  payloadBytes: number;
  roundTripsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
}

export function runBareEcho(options: EchoBenchOptions): Promise<EchoBenchResult> {
  return measurePair('bare @matrixai/quic', options, startBarePair({ answer: echo }));
}

export function runTransportEcho(options: EchoBenchOptions): Promise<EchoBenchResult> {
  return measurePair('MarkTransportClient + startMarkListener', options, startTransportPair({ answer: echo }));
}

async function measurePair(
  name: string,
  options: EchoBenchOptions,
  starting: Promise<QuicPair>,
): Promise<EchoBenchResult> {
  const pair = await starting;
  try {
    return await measure(name, options, pair.exchange);
  } finally {
    await pair.close();
  }
}

async function measure(name: string, options: EchoBenchOptions, roundTrip: Exchange): Promise<EchoBenchResult> {
  const payload = new Uint8Array(options.payloadBytes).fill(0x61);
  for (let i = 0; i < (options.warmup ?? 20); i++) await roundTrip(payload);
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < options.requests; i++) {
    const sent = performance.now();
    const echoed = await roundTrip(payload);
    latencies.push(performance.now() - sent);
    if (echoed.byteLength !== payload.byteLength) throw new Error(`${name}: echo lost bytes`);
  }
  const elapsedSeconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    name,
    requests: options.requests,
    payloadBytes: options.payloadBytes,
    roundTripsPerSecond: options.requests / elapsedSeconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}

function describe(result: EchoBenchResult): string {
  const rate = result.roundTripsPerSecond.toFixed(0).padStart(6);
  return `${result.name.padEnd(42)} ${rate} round trips/s   p50 ${result.p50Ms.toFixed(2)} ms   p99 ${result.p99Ms.toFixed(2)} ms`;
}

async function main(): Promise<void> {
  const requests = Number(process.argv[2] ?? 1000);
  const payloadBytes = Number(process.argv[3] ?? 100);
  const bare = await runBareEcho({ requests, payloadBytes });
  const transport = await runTransportEcho({ requests, payloadBytes });
  console.log(`sequential echo, ${requests} requests of ${payloadBytes} bytes`);
  console.log(describe(bare));
  console.log(describe(transport));
  console.log(
    `ratio (transport / bare round trips/s): ${(transport.roundTripsPerSecond / bare.roundTripsPerSecond).toFixed(3)}`,
  );
}

/** What one process measured of one tree's transport (the `--child` mode below). */
interface TreeEchoRun {
  roundTripsPerSecond: number;
  cpuMicrosPerEcho: number;
  /** Heap after a full collection, after the echoes minus before them. */
  heapGrowthMB: number;
}

async function childRun(tree: string, requests: number): Promise<TreeEchoRun> {
  const pairs = (await import(
    pathToFileURL(resolve(tree, 'bench/lib/quic-pairs.ts')).href
  )) as typeof import('./lib/quic-pairs.ts');
  const pair = await pairs.startTransportPair({ answer: pairs.echo });
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) throw new Error('the child needs --expose-gc');
  try {
    const payload = new Uint8Array(100).fill(0x61);
    for (let i = 0; i < 1000; i++) await pair.exchange(payload);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    for (let i = 0; i < requests; i++) await pair.exchange(payload);
    const seconds = (performance.now() - started) / 1000;
    const cpu = process.cpuUsage(cpuBefore);
    gc();
    return {
      roundTripsPerSecond: requests / seconds,
      cpuMicrosPerEcho: (cpu.user + cpu.system) / requests,
      heapGrowthMB: (process.memoryUsage().heapUsed - heapBefore) / 1e6,
    };
  } finally {
    await pair.close();
  }
}

function againstTree(tree: string, rounds: number, requests: number): void {
  const trees = { this: resolve(fileURLToPath(new URL('..', import.meta.url))), baseline: resolve(tree) };
  const runs: Record<keyof typeof trees, TreeEchoRun[]> = { this: [], baseline: [] };
  for (let round = 0; round < rounds; round++) {
    const order: Array<keyof typeof trees> = round % 2 === 0 ? ['baseline', 'this'] : ['this', 'baseline'];
    for (const which of order) {
      const output = execFileSync(
        process.execPath,
        ['--expose-gc', fileURLToPath(import.meta.url), '--child', trees[which], String(requests)],
        { encoding: 'utf8' },
      );
      runs[which].push(JSON.parse(output) as TreeEchoRun);
    }
  }
  const med = (which: keyof typeof trees, pick: keyof TreeEchoRun): number =>
    median(runs[which].map((run) => run[pick]));
  console.log(`transport echo, ${rounds} rounds of one process per tree, ${requests} echoes of 100 bytes each`);
  console.log(`baseline ${trees.baseline}, this ${trees.this}; medians over rounds`);
  for (const [label, pick, digits] of [
    ['round trips/s', 'roundTripsPerSecond', 0],
    ['CPU µs per echo', 'cpuMicrosPerEcho', 0],
    ['heap growth, MB', 'heapGrowthMB', 1],
  ] as const) {
    const base = med('baseline', pick);
    const mine = med('this', pick);
    const ratioText = pick === 'heapGrowthMB' ? '' : `   ratio this/baseline ${(mine / base).toFixed(3)}`;
    console.log(
      `${label.padEnd(16)} baseline ${base.toFixed(digits).padStart(7)}   this ${mine.toFixed(digits).padStart(7)}${ratioText}`,
    );
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--child') {
    console.log(JSON.stringify(await childRun(args[1] as string, Number(args[2]))));
  } else if (args[0] === '--against') {
    if (args[1] === undefined) throw new Error('--against needs the path of a baseline checkout');
    againstTree(args[1], Number(args[2] ?? 6), Number(args[3] ?? 20_000));
  } else {
    await main();
  }
}
