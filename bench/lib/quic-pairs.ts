/**
 * The two QUIC set-ups the transport benchmarks compare: the bare @matrixai/quic
 * library (one client connection, a new bidirectional stream per exchange, no
 * pool, no framing) and our MarkTransportClient against startMarkListener. Both
 * run on loopback with a fresh development certificate and answer with
 * `answer(request)`, so a benchmark only says what it sends and what comes back.
 */
import * as installedQuic from '@matrixai/quic';
import type { QUICConfig, QUICStream } from '@matrixai/quic';
import { MarkTransportClient } from '../../src/transport/client.ts';
import type { MarkTransportClientOptions } from '../../src/transport/client.ts';
import { startMarkListener } from '../../src/transport/server.ts';
import type { MarkListenerLimits } from '../../src/transport/server.ts';
import { generateDevCertificate } from '../../src/transport/tls.ts';
import { clientCryptoOps, serverCrypto, silentQuicLogger } from '../../src/transport/quic-support.ts';
import { readBounded, writeAndFinish } from '../../src/transport/stream-io.ts';
import type { QuicModule } from './quic-variants.ts';

const unbounded = Number.MAX_SAFE_INTEGER;

export type Exchange = (request: Uint8Array) => Promise<Uint8Array>;

export interface QuicPair {
  exchange: Exchange;
  close(): Promise<void>;
}

export interface BarePairOptions {
  answer: (request: Uint8Array) => Uint8Array;
  /** A copy of the library built by bench/lib/quic-variants.ts; default the installed one. */
  quic?: QuicModule;
  /** Extra QUIC settings for both ends (datagram sizes, read chunk). */
  config?: Partial<QUICConfig>;
}

export async function startBarePair(options: BarePairOptions): Promise<QuicPair> {
  const quic = options.quic ?? (installedQuic as QuicModule);
  const tls = await generateDevCertificate();
  const server = new quic.QUICServer({
    crypto: serverCrypto(),
    logger: silentQuicLogger(),
    config: {
      key: tls.key,
      cert: tls.cert,
      applicationProtos: ['mark'],
      verifyPeer: false,
      initialMaxStreamsUni: 0,
      ...options.config,
    },
  });
  server.addEventListener(quic.events.EventQUICServerConnection.name, (event: Event) => {
    const connection = (event as InstanceType<typeof quic.events.EventQUICServerConnection>).detail;
    connection.addEventListener(quic.events.EventQUICConnectionStream.name, (streamEvent: Event) => {
      const stream = (streamEvent as InstanceType<typeof quic.events.EventQUICConnectionStream>).detail;
      void serve(stream as unknown as QUICStream, options.answer);
    });
  });
  await server.start({ host: '127.0.0.1', port: 0 });
  const client = await quic.QUICClient.createQUICClient({
    host: '127.0.0.1',
    port: server.port,
    serverName: 'localhost',
    crypto: { ops: clientCryptoOps },
    logger: silentQuicLogger(),
    config: { applicationProtos: ['mark'], verifyPeer: true, ca: tls.cert, ...options.config },
  });
  return {
    async exchange(request) {
      const stream = client.connection.newStream('bidi') as unknown as QUICStream;
      const writing = writeAndFinish(stream.writable, request);
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

async function serve(stream: QUICStream, answer: (request: Uint8Array) => Uint8Array): Promise<void> {
  try {
    const { bytes } = await readBounded(stream.readable, unbounded);
    await writeAndFinish(stream.writable, answer(bytes));
  } catch {
    stream.cancel();
  }
}

export interface TransportPairOptions {
  answer: (request: Uint8Array) => Uint8Array;
  limits?: Partial<MarkListenerLimits>;
  client?: Omit<MarkTransportClientOptions, 'ca'>;
}

/** Our transport: startMarkListener on loopback and a MarkTransportClient dialing it. */
export async function startTransportPair(options: TransportPairOptions): Promise<QuicPair> {
  const tls = await generateDevCertificate();
  const listener = await startMarkListener({
    host: '127.0.0.1',
    port: 0,
    tls,
    handler: async (request) => options.answer(request.bytes),
    limits: { ratePerSecond: 0, ...options.limits },
  });
  const client = new MarkTransportClient({ ca: tls.cert, ...options.client });
  const authority = { host: 'localhost', port: listener.port, dialHost: '127.0.0.1' };
  return {
    exchange: (request) => client.request(authority, request, { idempotent: true }),
    async close() {
      await client.close();
      await listener.close();
    },
  };
}

export const echo = (request: Uint8Array): Uint8Array => request;
