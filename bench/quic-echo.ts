/**
 * Sequential echo round trips: bare @matrixai/quic (one client connection, a new
 * stream per request, no pool, no framing) against our MarkTransportClient and
 * startMarkListener, measured in the same run so the ratio is what matters.
 * Run directly: `node bench/quic-echo.ts [requests] [payloadBytes]`.
 */
import { fileURLToPath } from 'node:url';
import { QUICClient, QUICServer, events } from '@matrixai/quic';
import type { QUICStream } from '@matrixai/quic';
import { MarkTransportClient } from '../src/transport/client.ts';
import { startMarkListener } from '../src/transport/server.ts';
import { generateDevCertificate } from '../src/transport/tls.ts';
import type { TlsKeyPair } from '../src/transport/tls.ts';
import { clientCryptoOps, serverCrypto, silentQuicLogger } from '../src/transport/quic-support.ts';
import { readBounded, writeAndFinish } from '../src/transport/stream-io.ts';

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

type RoundTrip = (payload: Uint8Array) => Promise<Uint8Array>;

const unbounded = Number.MAX_SAFE_INTEGER;

export async function runBareEcho(options: EchoBenchOptions): Promise<EchoBenchResult> {
  const tls = await generateDevCertificate();
  const server = new QUICServer({
    crypto: serverCrypto(),
    logger: silentQuicLogger(),
    config: { key: tls.key, cert: tls.cert, applicationProtos: ['mark'], verifyPeer: false, initialMaxStreamsUni: 0 },
  });
  server.addEventListener(events.EventQUICServerConnection.name, (event: Event) => {
    const connection = (event as events.EventQUICServerConnection).detail;
    connection.addEventListener(events.EventQUICConnectionStream.name, (streamEvent: Event) => {
      void bareEcho((streamEvent as events.EventQUICConnectionStream).detail);
    });
  });
  await server.start({ host: '127.0.0.1', port: 0 });
  const client = await bareClient(tls, server.port);
  try {
    return await measure('bare @matrixai/quic', options, (payload) => bareRoundTrip(client, payload));
  } finally {
    await client.destroy({ force: true });
    await server.stop({ force: true });
  }
}

export async function runTransportEcho(options: EchoBenchOptions): Promise<EchoBenchResult> {
  const tls = await generateDevCertificate();
  const listener = await startMarkListener({
    host: '127.0.0.1',
    port: 0,
    tls,
    handler: async (request) => request.bytes,
    limits: { ratePerSecond: 0 },
  });
  const client = new MarkTransportClient({ ca: tls.cert });
  const authority = { host: 'localhost', port: listener.port, dialHost: '127.0.0.1' };
  try {
    return await measure('MarkTransportClient + startMarkListener', options, (payload) =>
      client.request(authority, payload, { idempotent: true }),
    );
  } finally {
    await client.close();
    await listener.close();
  }
}

async function bareEcho(stream: QUICStream): Promise<void> {
  try {
    const { bytes } = await readBounded(stream.readable, unbounded);
    await writeAndFinish(stream.writable, bytes);
  } catch {
    stream.cancel();
  }
}

function bareClient(tls: TlsKeyPair, port: number): Promise<QUICClient> {
  return QUICClient.createQUICClient({
    host: '127.0.0.1',
    port,
    serverName: 'localhost',
    crypto: { ops: clientCryptoOps },
    logger: silentQuicLogger(),
    config: { applicationProtos: ['mark'], verifyPeer: true, ca: tls.cert },
  });
}

async function bareRoundTrip(client: QUICClient, payload: Uint8Array): Promise<Uint8Array> {
  const stream = client.connection.newStream('bidi');
  const writing = writeAndFinish(stream.writable, payload);
  const { bytes } = await readBounded(stream.readable, unbounded);
  await writing;
  return bytes;
}

async function measure(name: string, options: EchoBenchOptions, roundTrip: RoundTrip): Promise<EchoBenchResult> {
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

function percentile(sorted: readonly number[], fraction: number): number {
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
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
