/**
 * The Mark transport client: pooled QUIC connections, one stream per request,
 * and the Go client's delivery rules (Go `client/fetch`, Mark SPEC §3):
 * - idempotent requests (reads) are retried on connection/stream errors and
 *   timeouts, up to 5 attempts 100 ms apart, each on a fresh connection;
 * - other requests (writes) are sent at most once; a failure after the first
 *   byte left is OutcomeUnknownError, and the caller reconciles by reading;
 * - failures before any byte left (dial, stream credit) are retried for both.
 */
import { maxResponseBytes as protocolMaxResponseBytes } from '../protocol/limits.ts';
import { Deadline } from '../concurrency/deadline.ts';
import { sleep } from './abortable.ts';
import { ConnectionPool } from './connection-pool.ts';
import {
  ClientClosedError,
  ConnectionLostError,
  DialFailedError,
  MarkTransportError,
  OutcomeUnknownError,
  RequestAbortedError,
  ResponseTooLargeError,
  TimeoutError,
} from './errors.ts';
import { exchange } from './exchange.ts';
import { writeAndFinish } from './stream-io.ts';
import type { ExchangeProgress } from './exchange.ts';
import type { PooledConnection } from './pooled-connection.ts';
import { dialTargetOf } from './authority.ts';
import type { MarkAuthority } from './authority.ts';

export interface MarkTransportClientOptions {
  /** PEM CA bundle to verify servers against; default the system store. */
  ca?: string;
  /** Accept any server certificate. Explicit opt-in only (Go `Options.Insecure`). */
  insecureSkipVerify?: boolean;
  /** Default 10 s. */
  dialTimeoutMs?: number;
  /** Per attempt, from asking for a connection (dial included) to the response's FIN; default 10 s. */
  requestTimeoutMs?: number;
  /**
   * The whole request, every attempt and pause included; default none (each
   * attempt gets its full `requestTimeoutMs`). With a budget, an attempt gets
   * what is left of it when that is less, and no attempt starts once it is spent.
   */
  budgetMs?: number;
  /** Attempts in total for a retryable failure; default 5. */
  maxAttempts?: number;
  /** Pause between attempts; default 100 ms. */
  retryDelayMs?: number;
  /**
   * Whether a dial that got no answer within `dialTimeoutMs` is tried again in
   * the same request (default true, as the Go client does). A caller that
   * keeps its own view of the peer's health turns it off: QUIC already
   * retransmits its Initial packets inside the dial timeout, so more dials
   * mostly spend the caller's budget on a peer that is not there.
   */
  retryDialTimeouts?: boolean;
  /** Response read cap; default 4 MiB (Mark `MaxResponseLength`). */
  maxResponseBytes?: number;
  /** Streams open at once per connection; default 8, below the Go server's 10. */
  maxConcurrentStreams?: number;
  /** QUIC max_idle_timeout offered by the client; default 30 s. */
  idleTimeoutMs?: number;
  /** Keep-alive ping period; default 25 s (Go client `KeepAlivePeriod`). */
  keepAliveIntervalMs?: number;
}

export interface MarkRequestOptions {
  /** True for reads (FETCH, LIST, VERSIONS, LOOKUP): safe to send again. */
  idempotent: boolean;
  /** Overrides the client's per-attempt request timeout. */
  timeoutMs?: number;
  /** Overrides the client's budget for the whole request. */
  budgetMs?: number;
  signal?: AbortSignal;
}

export class MarkTransportClient {
  readonly #pool: ConnectionPool;
  readonly #requestTimeoutMs: number;
  readonly #budgetMs: number | undefined;
  readonly #maxAttempts: number;
  readonly #retryDelayMs: number;
  readonly #retryDialTimeouts: boolean;
  readonly #maxResponseBytes: number;
  #closed = false;

  constructor(options: MarkTransportClientOptions = {}) {
    if (options.ca !== undefined && typeof options.ca !== 'string') throw new TypeError('ca must be PEM text');
    this.#requestTimeoutMs = positive('requestTimeoutMs', options.requestTimeoutMs ?? 10_000);
    this.#budgetMs = options.budgetMs === undefined ? undefined : positive('budgetMs', options.budgetMs);
    this.#maxAttempts = Math.floor(positive('maxAttempts', options.maxAttempts ?? 5));
    this.#retryDelayMs = positive('retryDelayMs', options.retryDelayMs ?? 100, true);
    this.#retryDialTimeouts = options.retryDialTimeouts ?? true;
    this.#maxResponseBytes = positive('maxResponseBytes', options.maxResponseBytes ?? protocolMaxResponseBytes);
    this.#pool = new ConnectionPool({
      ca: options.ca,
      insecureSkipVerify: options.insecureSkipVerify === true,
      dialTimeoutMs: positive('dialTimeoutMs', options.dialTimeoutMs ?? 10_000),
      idleTimeoutMs: positive('idleTimeoutMs', options.idleTimeoutMs ?? 30_000),
      keepAliveIntervalMs: positive('keepAliveIntervalMs', options.keepAliveIntervalMs ?? 25_000),
      maxConcurrentStreams: positive('maxConcurrentStreams', options.maxConcurrentStreams ?? 8),
    });
  }

  /** Pooled QUIC connections dialled and still usable, over all authorities. */
  get openConnections(): number {
    return this.#pool.openConnections;
  }

  /**
   * Stream slots held on pooled connections, over all authorities: each is
   * one of the `maxConcurrentStreams` a connection allows, given back when
   * its request ends, is aborted, or its stream's reader leaves.
   */
  get openStreams(): number {
    return this.#pool.openStreams;
  }

  /** Sends `request` on its own stream and returns the complete response bytes. */
  async request(authority: MarkAuthority, request: Uint8Array, options: MarkRequestOptions): Promise<Uint8Array> {
    if (!(request instanceof Uint8Array)) throw new TypeError('request must be a Uint8Array');
    const target = dialTargetOf(authority);
    const budgetMs = options.budgetMs ?? this.#budgetMs;
    const endsAt = budgetMs === undefined ? Number.POSITIVE_INFINITY : performance.now() + budgetMs;
    // A write is sent once, so with a budget its one attempt may use all of it.
    const attemptMs =
      options.idempotent || budgetMs === undefined
        ? (options.timeoutMs ?? this.#requestTimeoutMs)
        : (options.timeoutMs ?? budgetMs);
    // Built only when an attempt fails: a request that succeeds builds no error (and no stack).
    let lastError: MarkTransportError | undefined;
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt++) {
      if (this.#closed) throw new ClientClosedError();
      if (attempt > 1) await this.#pause(options.signal);
      const leftMs = Math.floor(endsAt - performance.now());
      // The budget is spent: report it as a timeout of the whole request.
      if (leftMs <= 0) throw new TimeoutError(budgetMs ?? attemptMs, { cause: lastError });
      const progress: ExchangeProgress = { sent: false };
      try {
        return await this.#attempt(target, request, Math.min(attemptMs, leftMs), options.signal, progress);
      } catch (error) {
        const failure = error as MarkTransportError;
        if (!options.idempotent && progress.sent && !(failure instanceof ResponseTooLargeError)) {
          throw new OutcomeUnknownError({ cause: failure });
        }
        if (!isRetryable(failure)) throw failure;
        if (!this.#retryDialTimeouts && failure instanceof DialFailedError && failure.timedOut) throw failure;
        lastError = failure;
      }
    }
    throw lastError ?? new ConnectionLostError();
  }

  /**
   * Sends `request` on a stream of its own and yields the answer's bytes as
   * they arrive, for an answer that stays open (WATCH). One attempt and no
   * size cap: the caller bounds what it holds (a WATCH block is at most
   * 8 KiB) and resumes with its own cursor. Leaving the loop early, or
   * aborting `signal`, resets the stream and gives its slot on the connection
   * back. An abort does so at once, whether or not the caller ever finishes
   * the iterator: a later `next()` on a stream still open rejects with
   * RequestAbortedError, and a later `return()` gives nothing back twice.
   */
  async *stream(authority: MarkAuthority, request: Uint8Array, signal: AbortSignal): AsyncGenerator<Uint8Array> {
    if (this.#closed) throw new ClientClosedError();
    // The request timeout bounds opening the stream only: the answer stays open.
    const opening = new Deadline(this.#requestTimeoutMs, signal);
    let connection: PooledConnection;
    let leased: Awaited<ReturnType<PooledConnection['openStream']>>;
    try {
      connection = await this.#pool.acquire(dialTargetOf(authority), opening.signal);
      leased = await connection.openStream(opening.signal);
    } catch (error) {
      throw classify(error, signal, opening.timedOut, this.#requestTimeoutMs);
    } finally {
      opening.end();
    }
    const { stream, release } = leased;
    // A generator suspended at `yield` runs no code until its caller calls next()
    // or return(), which a caller that aborted may never do: left to the finally
    // below, the slot would stay taken for good and, once all of a connection's
    // slots were, every request on it would wait until it timed out. So the
    // abort itself resets the stream and gives the slot back. release() counts
    // only its first call (LeasedStream, pooled-connection.ts): the finally
    // calling it again gives nothing back twice.
    const abandon = (): void => {
      try {
        stream.cancel(signal.reason);
      } finally {
        release();
      }
    };
    // An abort that came while the stream was being opened fires no listener added now.
    if (signal.aborted) {
      abandon();
      throw new RequestAbortedError({ cause: signal.reason });
    }
    signal.addEventListener('abort', abandon, { once: true });
    let finished = false;
    try {
      writeAndFinish(stream.writable, request).catch(() => {});
      const reader = stream.readable.getReader();
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) {
            finished = true;
            return;
          }
          yield value;
        }
      } finally {
        reader.releaseLock();
      }
    } catch (error) {
      throw classify(error, signal, false, this.#requestTimeoutMs);
    } finally {
      signal.removeEventListener('abort', abandon);
      if (!finished) stream.cancel(new Error('stream closed by the reader'));
      release();
    }
  }

  /** Closes every pooled connection; later requests fail with ClientClosedError. */
  async close(): Promise<void> {
    this.#closed = true;
    await this.#pool.close();
  }

  async #attempt(
    target: ReturnType<typeof dialTargetOf>,
    request: Uint8Array,
    timeoutMs: number,
    caller: AbortSignal | undefined,
    progress: ExchangeProgress,
  ): Promise<Uint8Array> {
    const deadline = new Deadline(timeoutMs, caller);
    const signal = deadline.signal;
    let connection: PooledConnection | undefined;
    try {
      // The dial counts against the attempt too, so a budget bounds a slow dial as well.
      connection = await this.#pool.acquire(target, signal);
      return await exchange(connection, request, { maxResponseBytes: this.#maxResponseBytes, signal }, progress);
    } catch (error) {
      const failure = classify(error, caller, deadline.timedOut, timeoutMs);
      // Go client: a retry goes out on a fresh connection.
      if (connection && isRetryable(failure)) this.#pool.retire(connection);
      throw failure;
    } finally {
      deadline.end();
    }
  }

  async #pause(signal: AbortSignal | undefined): Promise<void> {
    try {
      await sleep(this.#retryDelayMs, signal);
    } catch (cause) {
      throw new RequestAbortedError({ cause });
    }
  }
}

/** Turns whatever an attempt threw into one of our errors, keeping the original as cause. */
function classify(
  error: unknown,
  caller: AbortSignal | undefined,
  timedOut: boolean,
  timeoutMs: number,
): MarkTransportError {
  if (error instanceof MarkTransportError) return error;
  if (caller?.aborted) return new RequestAbortedError({ cause: caller.reason });
  if (timedOut) return new TimeoutError(timeoutMs, { cause: error });
  return new ConnectionLostError({ cause: error });
}

function isRetryable(error: MarkTransportError): boolean {
  return error.code === 'ERR_DIAL_FAILED' || error.code === 'ERR_CONNECTION_LOST' || error.code === 'ERR_TIMEOUT';
}

function positive(name: string, value: number, zeroAllowed = false): number {
  if (!Number.isFinite(value) || value < 0 || (value === 0 && !zeroAllowed)) {
    throw new RangeError(`${name} must be a positive number, got ${value}`);
  }
  return value;
}
