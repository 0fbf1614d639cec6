/**
 * Sequential echo round trips: bare @matrixai/quic (one client connection, a new
 * stream per request, no pool, no framing) against our MarkTransportClient and
 * startMarkListener, measured in the same run so the ratio is what matters.
 * Run directly: `node bench/quic-echo.ts [requests] [payloadBytes]`.
 */
import { fileURLToPath } from 'node:url';
import { echo, startBarePair, startTransportPair } from './lib/quic-pairs.ts';
import type { Exchange, QuicPair } from './lib/quic-pairs.ts';
import { percentile } from './lib/measure.ts';

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

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
