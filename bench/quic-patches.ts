/**
 * Each @matrixai/quic patch measured on its own: the bare library (one
 * connection, a new stream per request) on the upstream code, on each change
 * alone, on all of them and on all but each one, in the same process, interleaved in rounds with a
 * rotating order so machine load falls on every variant alike. Each round gives
 * every variant a run of sequential small echoes and one large download (a
 * small request answered by `downloadBytes`); both are timed by the wall clock
 * and by this process's CPU time, which load on the machine inflates far less. Prints, per variant, the median over rounds and the median of the paired
 * ratio to upstream measured in the same round.
 * Run: `node bench/quic-patches.ts [rounds] [requestsPerRound] [payloadBytes] [downloadMiB] [change,change]`;
 * the last argument limits the single and "all but" rows to the changes named.
 */
import { fileURLToPath } from 'node:url';
import { median, percentile } from './lib/measure.ts';
import { startBarePair } from './lib/quic-pairs.ts';
import type { QuicPair } from './lib/quic-pairs.ts';
import { buildQuicVariant, importQuicVariant, quicPatchChanges } from './lib/quic-variants.ts';

export interface PatchBenchRow {
  variant: string;
  /** `ratio`: this variant over upstream; `all/this`: all patches over this variant (what the left-out patch adds). */
  ratioLabel: 'ratio' | 'all/this';
  roundTripsPerSecond: number;
  ratioToUpstream: number;
  /** Echo round trips per second of this process's CPU time (both ends run here), and its paired ratio. */
  roundTripsPerCpuSecond: number;
  cpuRatioToUpstream: number;
  p50Ms: number;
  p99Ms: number;
  /** Large download: wall-clock MB/s, MB per CPU second, and the paired ratios of each. */
  downloadMBps: number;
  downloadRatio: number;
  downloadCpuMBps: number;
  downloadCpuRatio: number;
}

export async function runQuicPatchBench(
  rounds: number,
  perRound: number,
  payloadBytes: number,
  downloadBytes = 1_048_576,
  only: readonly string[] = [],
): Promise<PatchBenchRow[]> {
  const unknown = only.filter((name) => !quicPatchChanges.some((change) => change.name === name));
  if (unknown.length > 0) throw new Error(`no such patch change: ${unknown.join(', ')}`);
  // Measured changes: all of them, or the ones named (fewer variants, more rounds in the same time).
  const measured = only.length === 0 ? quicPatchChanges : quicPatchChanges.filter((c) => only.includes(c.name));
  const variants = [
    { name: 'upstream 2.0.9', changes: [] },
    ...measured.map((change) => ({ name: change.name, changes: [change] })),
    { name: 'all patches', changes: quicPatchChanges },
    // A patch whose saving is a few percent is lost in upstream's larger costs;
    // taking it out of the whole set shows what it adds to the others.
    // Its row's ratios are all patches' over that row's: what the patch adds.
    ...measured.map((change) => ({
      name: `all but ${change.name}`,
      changes: quicPatchChanges.filter((other) => other !== change),
      adds: true,
    })),
  ];
  const download = new Uint8Array(downloadBytes).fill(0x62);
  const downloadRequest = new TextEncoder().encode('download');
  // Echoes every request except the download request, which gets the large answer.
  const answer = (request: Uint8Array): Uint8Array =>
    request.byteLength === downloadRequest.byteLength && request[0] === 0x64 ? download : request;
  const pairs: QuicPair[] = [];
  for (const variant of variants)
    pairs.push(await startBarePair({ answer, quic: await importQuicVariant(buildQuicVariant(variant.changes)) }));
  const payload = new Uint8Array(payloadBytes).fill(0x61);
  const rates = variants.map((): number[] => []);
  const cpuRates = variants.map((): number[] => []);
  const latencies = variants.map((): number[] => []);
  const downloads = variants.map((): Array<{ wall: number; cpu: number }> => []);
  try {
    for (const pair of pairs) {
      for (let i = 0; i < 30; i++) await pair.exchange(payload);
      await pair.exchange(downloadRequest);
    }
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < variants.length; k++) {
        const index = (k + round) % variants.length;
        const pair = pairs[index] as QuicPair;
        const started = performance.now();
        const echoCpuBefore = process.cpuUsage();
        for (let i = 0; i < perRound; i++) {
          const sent = performance.now();
          const echoed = await pair.exchange(payload);
          latencies[index]?.push(performance.now() - sent);
          if (echoed.byteLength !== payloadBytes) throw new Error('echo lost bytes');
        }
        rates[index]?.push(perRound / ((performance.now() - started) / 1000));
        const echoCpu = process.cpuUsage(echoCpuBefore);
        cpuRates[index]?.push(perRound / ((echoCpu.user + echoCpu.system) / 1e6));
        const cpuBefore = process.cpuUsage();
        const downloadStarted = performance.now();
        const received = await pair.exchange(downloadRequest);
        const wallSeconds = (performance.now() - downloadStarted) / 1000;
        const cpu = process.cpuUsage(cpuBefore);
        if (received.byteLength !== downloadBytes) throw new Error('download lost bytes');
        downloads[index]?.push({
          wall: downloadBytes / wallSeconds / 1e6,
          cpu: downloadBytes / ((cpu.user + cpu.system) / 1e6) / 1e6,
        });
      }
    }
  } finally {
    for (const pair of pairs) await pair.close();
  }
  const allIndex = variants.findIndex((variant) => variant.name === 'all patches');
  /** Median over rounds of numerator[round] / denominator[round]. */
  const paired = (numerator: readonly number[], denominator: readonly number[]): number =>
    median(numerator.map((value, round) => value / (denominator[round] as number)));
  return variants.map((variant, index) => {
    // An "all but" row compares all patches against itself; every other row itself against upstream.
    const [top, bottom] = 'adds' in variant ? [allIndex, index] : [index, 0];
    const sorted = [...(latencies[index] as number[])].sort((a, b) => a - b);
    const downloadsOf = (at: number, pick: 'wall' | 'cpu'): number[] =>
      (downloads[at] as Array<{ wall: number; cpu: number }>).map((d) => d[pick]);
    return {
      variant: variant.name,
      ratioLabel: 'adds' in variant ? 'all/this' : 'ratio',
      roundTripsPerSecond: median(rates[index] as number[]),
      ratioToUpstream: paired(rates[top] as number[], rates[bottom] as number[]),
      roundTripsPerCpuSecond: median(cpuRates[index] as number[]),
      cpuRatioToUpstream: paired(cpuRates[top] as number[], cpuRates[bottom] as number[]),
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      downloadMBps: median(downloadsOf(index, 'wall')),
      downloadRatio: paired(downloadsOf(top, 'wall'), downloadsOf(bottom, 'wall')),
      downloadCpuMBps: median(downloadsOf(index, 'cpu')),
      downloadCpuRatio: paired(downloadsOf(top, 'cpu'), downloadsOf(bottom, 'cpu')),
    };
  });
}

export function formatPatchBench(rows: readonly PatchBenchRow[]): string {
  return rows
    .map(
      (row) =>
        `${row.variant.padEnd(28)} echo ${row.roundTripsPerSecond.toFixed(0).padStart(5)}/s p50 ${row.p50Ms.toFixed(3)} ms p99 ${row.p99Ms.toFixed(3)} ms ${row.ratioLabel} ${row.ratioToUpstream.toFixed(3)}` +
        `, per CPU second ${row.roundTripsPerCpuSecond.toFixed(0).padStart(5)} ${row.ratioLabel} ${row.cpuRatioToUpstream.toFixed(3)}` +
        ` | download ${row.downloadMBps.toFixed(2).padStart(6)} MB/s ${row.ratioLabel} ${row.downloadRatio.toFixed(3)}, per CPU second ${row.downloadCpuMBps.toFixed(2).padStart(6)} MB ${row.ratioLabel} ${row.downloadCpuRatio.toFixed(3)}`,
    )
    .join('\n');
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 6);
  const perRound = Number(process.argv[3] ?? 200);
  const payloadBytes = Number(process.argv[4] ?? 100);
  const downloadBytes = Number(process.argv[5] ?? 1) * 1_048_576;
  const only = process.argv[6]?.split(',').filter((name) => name !== '') ?? [];
  console.log(
    `bare library per patch, ${rounds} interleaved rounds of ${perRound} echoes of ${payloadBytes} bytes and one ${downloadBytes / 1_048_576} MiB download`,
  );
  console.log(formatPatchBench(await runQuicPatchBench(rounds, perRound, payloadBytes, downloadBytes, only)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
