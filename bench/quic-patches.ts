/**
 * Each @matrixai/quic patch measured on its own: the bare library echo (one
 * connection, a new stream per request, sequential) on the upstream code, on
 * each change alone and on all of them, in the same process, interleaved in
 * rounds with a rotating order so machine load falls on every variant alike.
 * Prints, per variant, the median over rounds of round trips/s and of the paired
 * ratio to upstream measured in the same round.
 * Run: `node bench/quic-patches.ts [rounds] [requestsPerRound] [payloadBytes]`.
 */
import { fileURLToPath } from 'node:url';
import type { QUICStream } from '@matrixai/quic';
import { generateDevCertificate } from '../src/transport/tls.ts';
import { clientCryptoOps, serverCrypto, silentQuicLogger } from '../src/transport/quic-support.ts';
import { readBounded, writeAndFinish } from '../src/transport/stream-io.ts';
import { percentile } from './lib/measure.ts';
import { buildQuicVariant, importQuicVariant, quicPatchChanges } from './lib/quic-variants.ts';
import type { QuicModule } from './lib/quic-variants.ts';

const unbounded = Number.MAX_SAFE_INTEGER;

interface EchoPair {
  roundTrip: (payload: Uint8Array) => Promise<Uint8Array>;
  close: () => Promise<void>;
}

async function startEcho(quic: QuicModule): Promise<EchoPair> {
  const tls = await generateDevCertificate();
  const server = new quic.QUICServer({
    crypto: serverCrypto(),
    logger: silentQuicLogger(),
    config: { key: tls.key, cert: tls.cert, applicationProtos: ['mark'], verifyPeer: false, initialMaxStreamsUni: 0 },
  });
  server.addEventListener(quic.events.EventQUICServerConnection.name, (event: Event) => {
    const connection = (event as InstanceType<typeof quic.events.EventQUICServerConnection>).detail;
    connection.addEventListener(quic.events.EventQUICConnectionStream.name, (streamEvent: Event) => {
      const stream = (streamEvent as InstanceType<typeof quic.events.EventQUICConnectionStream>).detail;
      void echo(stream as unknown as QUICStream);
    });
  });
  await server.start({ host: '127.0.0.1', port: 0 });
  const client = await quic.QUICClient.createQUICClient({
    host: '127.0.0.1',
    port: server.port,
    serverName: 'localhost',
    crypto: { ops: clientCryptoOps },
    logger: silentQuicLogger(),
    config: { applicationProtos: ['mark'], verifyPeer: true, ca: tls.cert },
  });
  return {
    async roundTrip(payload) {
      const stream = client.connection.newStream('bidi');
      const writing = writeAndFinish(stream.writable, payload);
      const { bytes } = await readBounded(stream.readable, unbounded);
      await writing;
      return bytes;
    },
    async close() {
      await client.destroy({ force: true });
      await server.stop({ force: true });
    },
  };
}

async function echo(stream: QUICStream): Promise<void> {
  try {
    const { bytes } = await readBounded(stream.readable, unbounded);
    await writeAndFinish(stream.writable, bytes);
  } catch {
    stream.cancel();
  }
}

export interface PatchBenchRow {
  variant: string;
  roundTripsPerSecond: number;
  ratioToUpstream: number;
  p50Ms: number;
  p99Ms: number;
}

export async function runQuicPatchBench(
  rounds: number,
  perRound: number,
  payloadBytes: number,
): Promise<PatchBenchRow[]> {
  const variants = [
    { name: 'upstream 2.0.9', changes: [] },
    ...quicPatchChanges.map((change) => ({ name: change.name, changes: [change] })),
    { name: 'all patches', changes: quicPatchChanges },
  ];
  const pairs: EchoPair[] = [];
  for (const variant of variants)
    pairs.push(await startEcho(await importQuicVariant(buildQuicVariant(variant.changes))));
  const payload = new Uint8Array(payloadBytes).fill(0x61);
  const rates = variants.map((): number[] => []);
  const latencies = variants.map((): number[] => []);
  try {
    for (const pair of pairs) for (let i = 0; i < 30; i++) await pair.roundTrip(payload);
    for (let round = 0; round < rounds; round++) {
      for (let k = 0; k < variants.length; k++) {
        const index = (k + round) % variants.length;
        const pair = pairs[index] as EchoPair;
        const started = performance.now();
        for (let i = 0; i < perRound; i++) {
          const sent = performance.now();
          const echoed = await pair.roundTrip(payload);
          latencies[index]?.push(performance.now() - sent);
          if (echoed.byteLength !== payloadBytes) throw new Error('echo lost bytes');
        }
        rates[index]?.push(perRound / ((performance.now() - started) / 1000));
      }
    }
  } finally {
    for (const pair of pairs) await pair.close();
  }
  const upstream = rates[0] as number[];
  return variants.map((variant, index) => {
    const own = rates[index] as number[];
    const sorted = [...(latencies[index] as number[])].sort((a, b) => a - b);
    return {
      variant: variant.name,
      roundTripsPerSecond: median(own),
      ratioToUpstream: median(own.map((rate, round) => rate / (upstream[round] as number))),
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
    };
  });
}

function median(values: readonly number[]): number {
  return percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );
}

export function formatPatchBench(rows: readonly PatchBenchRow[]): string {
  return rows
    .map(
      (row) =>
        `${row.variant.padEnd(18)} ${row.roundTripsPerSecond.toFixed(0).padStart(6)} round trips/s   p50 ${row.p50Ms.toFixed(3)} ms   p99 ${row.p99Ms.toFixed(3)} ms   ratio to upstream ${row.ratioToUpstream.toFixed(3)}`,
    )
    .join('\n');
}

async function main(): Promise<void> {
  const rounds = Number(process.argv[2] ?? 6);
  const perRound = Number(process.argv[3] ?? 200);
  const payloadBytes = Number(process.argv[4] ?? 100);
  console.log(`bare echo per patch, ${rounds} interleaved rounds x ${perRound} requests of ${payloadBytes} bytes`);
  console.log(formatPatchBench(await runQuicPatchBench(rounds, perRound, payloadBytes)));
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
