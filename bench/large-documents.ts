/**
 * Large documents through the transport: a FETCH-shaped exchange (small request,
 * large response) and a PUBLISH-shaped one (large request, small response) of
 * 1 MiB and 4 MiB through MarkTransportClient and startMarkListener, beside the
 * same bytes moved by the bare @matrixai/quic library (one stream, no pool, no
 * framing, the library's default settings), interleaved in the same run. Prints
 * MB/s by the wall clock and per second of this process's CPU time (both ends
 * run here; machine load inflates the CPU figure far less than the wall clock),
 * and the transport's ratio to the bare library; the goal is 50 MB/s on loopback.
 * Run: `node bench/large-documents.ts [rounds] [sizesMiB]`, e.g. `3 1,4`.
 */
import { fileURLToPath } from 'node:url';
import { median } from './lib/measure.ts';
import { startBarePair, startTransportPair } from './lib/quic-pairs.ts';
import type { Exchange } from './lib/quic-pairs.ts';

const small = new TextEncoder().encode('ok\n');

export interface LargeDocumentRow {
  shape: 'fetch' | 'publish';
  bytes: number;
  bareMBps: number;
  transportMBps: number;
  ratio: number;
  /** MB moved per second of CPU time. */
  bareCpuMBps: number;
  transportCpuMBps: number;
}

/** The server answers a small request with `responseFor(size)` and a large one with `small`. */
function answer(request: Uint8Array, responses: Map<number, Uint8Array>): Uint8Array {
  if (request.byteLength > 64) return small;
  return responses.get(Number(new TextDecoder().decode(request))) ?? small;
}

export async function runLargeDocumentBench(rounds: number, sizes: readonly number[]): Promise<LargeDocumentRow[]> {
  const responses = new Map(sizes.map((size) => [size, new Uint8Array(size).fill(0x62)]));
  const largest = Math.max(...sizes);
  const answerFor = (request: Uint8Array) => answer(request, responses);
  const transportPair = await startTransportPair({
    answer: answerFor,
    limits: { maxRequestBytes: largest + 1024, requestTimeoutMs: 120_000 },
    client: { requestTimeoutMs: 120_000, maxResponseBytes: largest + 1024 },
  });
  const barePair = await startBarePair({ answer: answerFor });
  const transport: Exchange = transportPair.exchange;
  const bare: Exchange = barePair.exchange;

  const rows: LargeDocumentRow[] = [];
  try {
    for (const size of sizes) {
      for (const shape of ['fetch', 'publish'] as const) {
        const request = shape === 'fetch' ? new TextEncoder().encode(String(size)) : new Uint8Array(size).fill(0x61);
        const bareRates: number[] = [];
        const transportRates: number[] = [];
        const bareCpuRates: number[] = [];
        const transportCpuRates: number[] = [];
        await bare(request);
        await transport(request);
        for (let round = 0; round < rounds; round++) {
          const order: Array<[Exchange, number[], number[]]> = [
            [bare, bareRates, bareCpuRates],
            [transport, transportRates, transportCpuRates],
          ];
          if (round % 2 === 1) order.reverse();
          for (const [exchange, rates, cpuRates] of order) {
            const cpuBefore = process.cpuUsage();
            const started = performance.now();
            const response = await exchange(request);
            const seconds = (performance.now() - started) / 1000;
            const cpu = process.cpuUsage(cpuBefore);
            if (shape === 'fetch' && response.byteLength !== size) throw new Error(`${shape}: lost bytes`);
            rates.push(size / seconds / 1e6);
            cpuRates.push(size / ((cpu.user + cpu.system) / 1e6) / 1e6);
          }
        }
        const bareMBps = median(bareRates);
        const transportMBps = median(transportRates);
        rows.push({
          shape,
          bytes: size,
          bareMBps,
          transportMBps,
          ratio: transportMBps / bareMBps,
          bareCpuMBps: median(bareCpuRates),
          transportCpuMBps: median(transportCpuRates),
        });
      }
    }
  } finally {
    await transportPair.close();
    await barePair.close();
  }
  return rows;
}

export function formatLargeDocuments(rows: readonly LargeDocumentRow[]): string {
  return rows
    .map(
      (row) =>
        `${row.shape.padEnd(8)} ${(row.bytes / 1_048_576).toFixed(0)} MiB   bare @matrixai/quic ${row.bareMBps.toFixed(2).padStart(7)} MB/s   transport ${row.transportMBps.toFixed(2).padStart(7)} MB/s   ratio ${row.ratio.toFixed(3)}   per CPU second: bare ${row.bareCpuMBps.toFixed(1)} MB, transport ${row.transportCpuMBps.toFixed(1)} MB   (goal 50 MB/s)`,
    )
    .join('\n');
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 3);
  const sizes = (process.argv[3] ?? '1,4').split(',').map((mib) => Number(mib) * 1_048_576);
  console.log(`large documents, median of ${rounds} interleaved rounds`);
  console.log(formatLargeDocuments(await runLargeDocumentBench(rounds, sizes)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
