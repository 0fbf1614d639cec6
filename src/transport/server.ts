/**
 * The Mark listener: QUIC on UDP with ALPN `mark`, one request per client-opened
 * bidirectional stream, no unidirectional streams (Mark SPEC §3). Defaults are the Go
 * server's (`config.go`): 10 streams per connection, 30 s idle timeout, 10 s per
 * request, 50 requests/s per IP with a burst of 100. Ours on top: 16 connections
 * per IP and 8 maximum-size requests' worth of unfinished request bytes per IP
 * (src/transport/peer-holdings.ts).
 */
import { QUICServer, events } from '@matrixai/quic';
import type { QUICConnection, QUICStream } from '@matrixai/quic';
import { alpn, defaultPort, maxRequestLineBytes, maxRequestPayloadBytes } from '../protocol/limits.ts';
import { datagramSettings, socketBufferBytes } from './datagrams.ts';
import { ListenFailedError } from './errors.ts';
import { setTimeout as delay } from 'node:timers/promises';
import { internalErrorResponse, rateLimitedResponse } from './fallback-responses.ts';
import { peerOf } from './peer.ts';
import { setSocketBuffers } from './quic-internals.ts';
import type { MarkPeer } from './peer.ts';
import { serverCrypto, silentQuicLogger } from './quic-support.ts';
import { PeerHoldings } from './peer-holdings.ts';
import { PerIpRateLimiter } from './rate-limit.ts';
import { serveStream } from './serve-stream.ts';
import type { MarkRequestHandler, StreamServing, TransportLogger } from './serve-stream.ts';
import { checkKeyPair } from './tls.ts';
import type { TlsKeyPair } from './tls.ts';

export interface MarkListenerLimits {
  /** Bytes read per request before it counts as oversized: request line + LF + payload bound. */
  maxRequestBytes: number;
  /** From the stream's arrival to the response's FIN; 0 is not allowed. */
  requestTimeoutMs: number;
  /** Concurrent client streams per connection (QUIC initial_max_streams_bidi). */
  maxStreamsPerConnection: number;
  /** QUIC max_idle_timeout. */
  idleTimeoutMs: number;
  /** Per-IP token bucket refill rate; 0 turns rate limiting off. */
  ratePerSecond: number;
  rateBurst: number;
  /** Connections open at once from one IP; more are closed as they arrive. */
  maxConnectionsPerIp: number;
  /** Bytes of unfinished requests held at once for one IP, over all its connections. */
  maxPendingBytesPerIp: number;
}

export const defaultListenerLimits: Readonly<MarkListenerLimits> = Object.freeze({
  maxRequestBytes: maxRequestLineBytes + 1 + maxRequestPayloadBytes,
  requestTimeoutMs: 10_000,
  maxStreamsPerConnection: 10,
  idleTimeoutMs: 30_000,
  ratePerSecond: 50,
  rateBurst: 100,
  // A broker reaches a world over a few pooled connections; 16 leaves room for several replicas behind one address.
  maxConnectionsPerIp: 16,
  // Room for eight maximum-size PUBLISH requests of one address at once.
  maxPendingBytesPerIp: 8 * (maxRequestLineBytes + 1 + maxRequestPayloadBytes),
});

export interface MarkListenerOptions {
  /** Default `::` (all interfaces, dual-stack). */
  host?: string;
  /** Default 6309; 0 picks a free port. */
  port?: number;
  tls: TlsKeyPair;
  handler: MarkRequestHandler;
  limits?: Partial<MarkListenerLimits>;
  /** Bytes for a request over its rate budget; default a `rate-limited` error response. */
  rateLimited?: (peer: MarkPeer) => Uint8Array;
  /** Bytes for a request whose handler threw; default `server-error` "internal error". */
  onError?: (error: unknown, peer: MarkPeer) => Uint8Array;
  logger?: TransportLogger;
}

export interface MarkListener {
  /** The bound address and port (the real port when 0 was asked for). */
  readonly host: string;
  readonly port: number;
  /**
   * Stops accepting connections, lets the requests in flight (and those still
   * coming on open connections) finish for up to `graceMs` (default 0), then
   * aborts what is left (WATCH streams included) and closes every connection.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * The requests being served, and whether new ones are still taken. A set of the
 * requests' promises rather than a count: close() awaits the members themselves
 * (`finishedWithin`), so a drain wakes when they settle instead of polling a number.
 */
type InFlight = { draining: boolean; requests: Set<Promise<void>> };

export async function startMarkListener(options: MarkListenerOptions): Promise<MarkListener> {
  const limits = resolveLimits(options.limits);
  checkKeyPair(options.tls);
  const host = options.host ?? '::';
  const port = options.port ?? defaultPort;
  const closing = new AbortController();
  const serving: StreamServing = {
    handler: options.handler,
    maxRequestBytes: limits.maxRequestBytes,
    requestTimeoutMs: limits.requestTimeoutMs,
    limiter: new PerIpRateLimiter({ ratePerSecond: limits.ratePerSecond, burst: limits.rateBurst }),
    holdings: new PeerHoldings({
      maxConnectionsPerIp: limits.maxConnectionsPerIp,
      maxPendingBytesPerIp: limits.maxPendingBytesPerIp,
    }),
    rateLimited: options.rateLimited ?? rateLimitedResponse,
    onError: options.onError ?? internalErrorResponse,
    logger: options.logger,
    closing: closing.signal,
  };
  const server = createQuicServer(options.tls, limits, host);
  const inFlight: InFlight = { draining: false, requests: new Set() };
  server.addEventListener(events.EventQUICServerConnection.name, (event: Event) => {
    acceptConnection((event as events.EventQUICServerConnection).detail, serving, inFlight);
  });
  try {
    await server.start({ host, port });
  } catch (cause) {
    throw new ListenFailedError(`${host}:${port}`, { cause });
  }
  setSocketBuffers(server, socketBufferBytes);
  return listenerHandle(server, closing, inFlight);
}

function createQuicServer(tls: TlsKeyPair, limits: MarkListenerLimits, host: string): QUICServer {
  return new QUICServer({
    crypto: serverCrypto(),
    logger: silentQuicLogger(),
    config: {
      key: tls.key,
      cert: tls.cert,
      applicationProtos: [alpn],
      verifyPeer: false,
      maxIdleTimeout: limits.idleTimeoutMs,
      initialMaxStreamsBidi: limits.maxStreamsPerConnection,
      initialMaxStreamsUni: 0,
      ...datagramSettings(host),
    },
  });
}

/** QUIC application error code of a connection refused for its address's share (Mark defines none). */
const tooManyConnectionsCode = 0x1;

/** QUIC application error code of a connection refused because the listener is closing. */
const closingCode = 0x2;

function acceptConnection(connection: QUICConnection, serving: StreamServing, inFlight: InFlight): void {
  const ip = peerOf(connection).host;
  if (inFlight.draining) {
    void connection
      .stop({ isApp: true, errorCode: closingCode, reason: new TextEncoder().encode('shutting down'), force: true })
      .catch(() => {});
    return;
  }
  if (!serving.holdings.openConnection(ip)) {
    serving.logger?.warn({ ip }, 'mark connection refused: too many connections from this address');
    void connection
      .stop({
        isApp: true,
        errorCode: tooManyConnectionsCode,
        reason: new TextEncoder().encode('too many connections from this address'),
        force: true,
      })
      .catch(() => {});
    return;
  }
  connection.addEventListener(events.EventQUICConnectionStopped.name, () => serving.holdings.closeConnection(ip), {
    once: true,
  });
  connection.addEventListener(events.EventQUICConnectionStream.name, (event: Event) => {
    const stream: QUICStream = (event as events.EventQUICConnectionStream).detail;
    // Mark SPEC §3: requests travel on client bidirectional streams only.
    if (stream.type !== 'bidi') {
      stream.cancel(new Error('unidirectional streams are not accepted'));
      return;
    }
    // Requests on connections already open are still served while the listener drains (resetting
    // a stream the peer is still sending on fails its whole connection in @matrixai/quic, the
    // requests in flight with it); they are in flight like the others, within the same bound.
    const served = serveStream(stream, peerOf(connection), serving);
    inFlight.requests.add(served);
    void served.finally(() => inFlight.requests.delete(served));
  });
}

function listenerHandle(server: QUICServer, closing: AbortController, inFlight: InFlight): MarkListener {
  let closed: Promise<void> | undefined;
  return {
    host: server.host,
    port: server.port,
    close(options = {}): Promise<void> {
      closed ??= (async () => {
        inFlight.draining = true;
        const finished = await finishedWithin(inFlight.requests, options.graceMs ?? 0);
        // A written answer may still be on its way: a client that gets the connection's close
        // first loses the stream's unread data with it (seen in test/transport/graceful-close.test.ts),
        // so the last answers get a moment before the close. Past the bound everything is cut.
        if (finished) await delay(answerLingerMs);
        closing.abort(new Error('listener closed'));
        // Forced: a graceful stop would wait for every peer's connection to end (a pooled one idles for long).
        await server.stop({ force: true });
      })();
      return closed;
    },
  };
}

/** How long finished answers are given to reach their peers before the connections close on shutdown. */
const answerLingerMs = 250;

/** Waits until no request is in flight (the set shrinks as they end), or `graceMs` passed; true in the first case. */
async function finishedWithin(requests: ReadonlySet<Promise<void>>, graceMs: number): Promise<boolean> {
  if (graceMs <= 0) return false;
  let timer: NodeJS.Timeout | undefined;
  let passed = false;
  const bound = new Promise<void>((resolve) => {
    timer = setTimeout(() => {
      passed = true;
      resolve();
    }, graceMs);
  });
  try {
    while (requests.size > 0 && !passed) await Promise.race([Promise.allSettled([...requests]), bound]);
  } finally {
    clearTimeout(timer);
  }
  return requests.size === 0;
}

function resolveLimits(given: Partial<MarkListenerLimits> | undefined): MarkListenerLimits {
  const limits: MarkListenerLimits = { ...defaultListenerLimits };
  for (const name of Object.keys(limits) as Array<keyof MarkListenerLimits>) {
    const value = given?.[name] ?? limits[name];
    const zeroAllowed = name === 'ratePerSecond';
    if (!Number.isFinite(value) || value < 0 || (!zeroAllowed && value === 0)) {
      throw new RangeError(`listener limit ${name} must be a positive number, got ${value}`);
    }
    limits[name] = value;
  }
  if (!Number.isInteger(limits.maxStreamsPerConnection)) {
    throw new RangeError(`maxStreamsPerConnection must be an integer, got ${limits.maxStreamsPerConnection}`);
  }
  return limits;
}
