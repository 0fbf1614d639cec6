/**
 * One client QUIC connection to one authority, and the gate in front of its
 * streams. Mark SPEC §3: one request per client-opened bidirectional stream.
 */
import { QUICClient, errors, events } from '@matrixai/quic';
import type { QUICStream } from '@matrixai/quic';
import { alpn } from '../protocol/limits.ts';
import { datagramSettings, socketBufferBytes } from './datagrams.ts';
import { ConnectionLostError, DialFailedError, TlsHandshakeError } from './errors.ts';
import { peerBidiStreamsLeft, setSocketBuffers } from './quic-internals.ts';
import { clientCryptoOps, silentQuicLogger } from './quic-support.ts';
import { Semaphore } from '../concurrency/semaphore.ts';

/** Where to dial and which name to present. */
export interface DialTarget {
  /** Pool key: authority host:port, plus SNI and dial address when they differ. */
  key: string;
  dialHost: string;
  port: number;
  /** TLS SNI, and the name the certificate is verified against. */
  serverName: string;
}

export interface ConnectionSettings {
  /** PEM CA bundle; absent means the system store. Ignored when verification is off. */
  ca: string | undefined;
  insecureSkipVerify: boolean;
  dialTimeoutMs: number;
  idleTimeoutMs: number;
  keepAliveIntervalMs: number;
  /** Streams this client keeps open at once on one connection. */
  maxConcurrentStreams: number;
}

/**
 * A stream handed out by the gate; `release()` must be called once the exchange
 * ends. Only its first call gives the slot back, so an abort handler and a
 * `finally` may both call it.
 */
export interface LeasedStream {
  stream: QUICStream;
  release(): void;
}

/**
 * The longest a stream waits for credit without an event: a safety net only.
 * The wait normally ends at the next packet the connection sends, which follows
 * the peer's MAX_STREAMS frame (the library sends after every receive, and the
 * frame needs an acknowledgement), or at a release of one of our own streams.
 */
const creditFallbackMs = 25;

export class PooledConnection {
  readonly target: DialTarget;
  readonly #client: QUICClient;
  readonly #slots: Semaphore;
  #inFlight = 0;
  #retired = false;
  #lost = false;
  #onLost: (() => void) | undefined;
  /** Streams waiting for the peer's credit, woken together by #wakeCreditWaiters. */
  readonly #creditWaiters = new Set<() => void>();
  readonly #onConnectionSend = (): void => this.#wakeCreditWaiters();

  private constructor(target: DialTarget, client: QUICClient, settings: ConnectionSettings) {
    this.target = target;
    this.#client = client;
    this.#slots = new Semaphore(settings.maxConcurrentStreams);
    client.addEventListener(events.EventQUICClientClose.name, () => this.#markLost(), { once: true });
    client.addEventListener(events.EventQUICClientDestroyed.name, () => this.#markLost(), { once: true });
  }

  static async dial(target: DialTarget, settings: ConnectionSettings): Promise<PooledConnection> {
    try {
      const client = await QUICClient.createQUICClient(
        {
          host: target.dialHost,
          port: target.port,
          serverName: target.serverName,
          crypto: { ops: clientCryptoOps },
          logger: silentQuicLogger(),
          config: quicConfigOf(settings, target.dialHost),
        },
        { timer: settings.dialTimeoutMs },
      );
      setSocketBuffers(client, socketBufferBytes);
      return new PooledConnection(target, client, settings);
    } catch (cause) {
      throw dialError(target, cause);
    }
  }

  /** False once the connection died or was retired: the pool dials a fresh one. */
  get usable(): boolean {
    return !this.#retired && !this.#lost && !this.#client.closed && !this.#client.connection.closed;
  }

  /** Stream slots held now: streams open, or leased and waiting for the peer's credit. */
  get openStreams(): number {
    return this.#inFlight;
  }

  /** Called once when the connection dies on its own (peer close, idle timeout). */
  onLost(callback: () => void): void {
    this.#onLost = callback;
  }

  /**
   * Waits for one of our stream slots and for the peer's stream credit, then opens
   * a stream. Nothing has been sent when this throws.
   */
  async openStream(signal: AbortSignal): Promise<LeasedStream> {
    await this.#slots.acquire(signal);
    this.#inFlight += 1;
    let released = false;
    const release = (): void => {
      if (released) return;
      released = true;
      this.#inFlight -= 1;
      this.#slots.release();
      this.#wakeCreditWaiters();
      if (this.#retired && this.#inFlight === 0) void this.destroy();
    };
    try {
      return { stream: await this.#newStreamWithinCredit(signal), release };
    } catch (error) {
      release();
      if (error instanceof errors.ErrorQUICStreamLimit || error instanceof errors.ErrorQUICUndefinedBehaviour) {
        // 2.0.9 cannot open another stream on this connection after this (quic-internals.ts).
        this.retire();
        throw new ConnectionLostError({ cause: error });
      }
      throw error;
    }
  }

  /**
   * Checks the credit and opens the stream in one synchronous step, so two
   * waiters woken together cannot both spend the last credit.
   */
  async #newStreamWithinCredit(signal: AbortSignal): Promise<QUICStream> {
    for (;;) {
      signal.throwIfAborted();
      if (!this.usable) throw new ConnectionLostError();
      const left = peerBidiStreamsLeft(this.#client.connection);
      if (left === undefined || left > 0) return this.#client.connection.newStream('bidi');
      await this.#creditMayHaveChanged(signal);
    }
  }

  /**
   * Resolves at the connection's next sent packet, our next stream release, the
   * connection's loss, the fallback delay, or the signal's abort (the loop above
   * then throws): each is a moment the credit may have grown.
   */
  #creditMayHaveChanged(signal: AbortSignal): Promise<void> {
    return new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        signal.removeEventListener('abort', wake);
        this.#creditWaiters.delete(wake);
        if (this.#creditWaiters.size === 0)
          this.#client.connection.removeEventListener(events.EventQUICConnectionSend.name, this.#onConnectionSend);
        resolve();
      };
      const timer = setTimeout(wake, creditFallbackMs);
      signal.addEventListener('abort', wake, { once: true });
      if (this.#creditWaiters.size === 0)
        this.#client.connection.addEventListener(events.EventQUICConnectionSend.name, this.#onConnectionSend);
      this.#creditWaiters.add(wake);
    });
  }

  #wakeCreditWaiters(): void {
    for (const wake of [...this.#creditWaiters]) wake();
  }

  /** Hands out no more streams; closes once the streams already out are done. */
  retire(): void {
    this.#retired = true;
    if (this.#inFlight === 0) void this.destroy();
  }

  async destroy(): Promise<void> {
    this.#retired = true;
    await this.#client.destroy({ force: true }).catch(() => {});
  }

  #markLost(): void {
    if (this.#lost) return;
    this.#lost = true;
    this.#wakeCreditWaiters();
    this.#onLost?.();
  }
}

function quicConfigOf(
  settings: ConnectionSettings,
  dialHost: string,
): Parameters<typeof QUICClient.createQUICClient>[0]['config'] {
  return {
    ...datagramSettings(dialHost),
    applicationProtos: [alpn],
    verifyPeer: !settings.insecureSkipVerify,
    ...(settings.ca !== undefined && !settings.insecureSkipVerify ? { ca: settings.ca } : {}),
    maxIdleTimeout: settings.idleTimeoutMs,
    // Go client: KeepAlivePeriod 25 s, so an idle pooled connection stays open.
    keepAliveIntervalTime: settings.keepAliveIntervalMs,
  };
}

function dialError(target: DialTarget, cause: unknown): Error {
  if (cause instanceof errors.ErrorQUICConnectionLocalTLS || cause instanceof errors.ErrorQUICConnectionPeerTLS) {
    return new TlsHandshakeError(target.serverName, { cause });
  }
  const timedOut =
    cause instanceof errors.ErrorQUICClientCreateTimeout || cause instanceof errors.ErrorQUICConnectionStartTimeout;
  return new DialFailedError(`${target.dialHost}:${target.port}`, { cause, timedOut });
}
