/**
 * Large documents through the transport: a FETCH-shaped exchange (small request,
 * large response) and a PUBLISH-shaped one (large request, small response) of
 * 1 MiB and 4 MiB through MarkTransportClient and startMarkListener, beside the
 * same bytes moved by the bare @matrixai/quic library (one stream, no pool, no
 * framing), interleaved in the same run. Prints MB/s and the ratio to the bare
 * library; the goal is 50 MB/s on loopback.
 * Run: `node bench/large-documents.ts [rounds] [sizesMiB]`, e.g. `3 1,4`.
 */
import { fileURLToPath } from 'node:url';
import { QUICClient, QUICServer, events } from '@matrixai/quic';
import type { QUICStream } from '@matrixai/quic';
import { MarkTransportClient } from '../src/transport/client.ts';
import { startMarkListener } from '../src/transport/server.ts';
import { generateDevCertificate } from '../src/transport/tls.ts';
import { clientCryptoOps, serverCrypto, silentQuicLogger } from '../src/transport/quic-support.ts';
import { readBounded, writeAndFinish } from '../src/transport/stream-io.ts';
import { percentile } from './lib/measure.ts';

const unbounded = Number.MAX_SAFE_INTEGER;
const small = new TextEncoder().encode('ok\n');
type Exchange = (request: Uint8Array) => Promise<Uint8Array>;

export interface LargeDocumentRow {
  shape: 'fetch' | 'publish';
  bytes: number;
  bareMBps: number;
  transportMBps: number;
  ratio: number;
}

/** The server answers a small request with `responseFor(size)` and a large one with `small`. */
function answer(request: Uint8Array, responses: Map<number, Uint8Array>): Uint8Array {
  if (request.byteLength > 64) return small;
  return responses.get(Number(new TextDecoder().decode(request))) ?? small;
}

export async function runLargeDocumentBench(rounds: number, sizes: readonly number[]): Promise<LargeDocumentRow[]> {
  const tls = await generateDevCertificate();
  const responses = new Map(sizes.map((size) => [size, new Uint8Array(size).fill(0x62)]));
  const largest = Math.max(...sizes);
  const listener = await startMarkListener({
    host: '127.0.0.1',
    port: 0,
    tls,
    handler: async (request) => answer(request.bytes, responses),
    limits: { ratePerSecond: 0, maxRequestBytes: largest + 1024, requestTimeoutMs: 120_000 },
  });
  const client = new MarkTransportClient({ ca: tls.cert, requestTimeoutMs: 120_000, maxResponseBytes: largest + 1024 });
  const authority = { host: 'localhost', port: listener.port, dialHost: '127.0.0.1' };
  const transport: Exchange = (request) => client.request(authority, request, { idempotent: true });

  const server = new QUICServer({
    crypto: serverCrypto(),
    logger: silentQuicLogger(),
    config: { key: tls.key, cert: tls.cert, applicationProtos: ['mark'], verifyPeer: false, initialMaxStreamsUni: 0 },
  });
  server.addEventListener(events.EventQUICServerConnection.name, (event: Event) => {
    const connection = (event as events.EventQUICServerConnection).detail;
    connection.addEventListener(events.EventQUICConnectionStream.name, (streamEvent: Event) => {
      void serveBare((streamEvent as events.EventQUICConnectionStream).detail, responses);
    });
  });
  await server.start({ host: '127.0.0.1', port: 0 });
  const bareClient = await QUICClient.createQUICClient({
    host: '127.0.0.1',
    port: server.port,
    serverName: 'localhost',
    crypto: { ops: clientCryptoOps },
    logger: silentQuicLogger(),
    config: { applicationProtos: ['mark'], verifyPeer: true, ca: tls.cert },
  });
  const bare: Exchange = async (request) => {
    const stream = bareClient.connection.newStream('bidi');
    const writing = writeAndFinish(stream.writable, request);
    const { bytes } = await readBounded(stream.readable, unbounded);
    await writing;
    return bytes;
  };

  const rows: LargeDocumentRow[] = [];
  try {
    for (const size of sizes) {
      for (const shape of ['fetch', 'publish'] as const) {
        const request = shape === 'fetch' ? new TextEncoder().encode(String(size)) : new Uint8Array(size).fill(0x61);
        const bareRates: number[] = [];
        const transportRates: number[] = [];
        await bare(request);
        await transport(request);
        for (let round = 0; round < rounds; round++) {
          const order: Array<[Exchange, number[]]> = [
            [bare, bareRates],
            [transport, transportRates],
          ];
          if (round % 2 === 1) order.reverse();
          for (const [exchange, rates] of order) {
            const started = performance.now();
            const response = await exchange(request);
            const seconds = (performance.now() - started) / 1000;
            if (shape === 'fetch' && response.byteLength !== size) throw new Error(`${shape}: lost bytes`);
            rates.push(size / seconds / 1e6);
          }
        }
        const bareMBps = median(bareRates);
        const transportMBps = median(transportRates);
        rows.push({ shape, bytes: size, bareMBps, transportMBps, ratio: transportMBps / bareMBps });
      }
    }
  } finally {
    await client.close();
    await listener.close();
    await bareClient.destroy({ force: true });
    await server.stop({ force: true });
  }
  return rows;
}

async function serveBare(stream: QUICStream, responses: Map<number, Uint8Array>): Promise<void> {
  try {
    const { bytes } = await readBounded(stream.readable, unbounded);
    await writeAndFinish(stream.writable, answer(bytes, responses));
  } catch {
    stream.cancel();
  }
}

function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

export function formatLargeDocuments(rows: readonly LargeDocumentRow[]): string {
  return rows
    .map(
      (row) =>
        `${row.shape.padEnd(8)} ${(row.bytes / 1_048_576).toFixed(0)} MiB   bare @matrixai/quic ${row.bareMBps.toFixed(2).padStart(7)} MB/s   transport ${row.transportMBps.toFixed(2).padStart(7)} MB/s   ratio ${row.ratio.toFixed(3)}   (goal 50 MB/s)`,
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
