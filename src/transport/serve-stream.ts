/**
 * One request on one client-opened bidirectional stream (Mark SPEC §3): admit it
 * under the peer's rate budget, read it to FIN within the size bound, let the
 * handler answer, write the answer and FIN. Anything that goes wrong resets the
 * stream; nothing here throws into the listener.
 */
import type { QUICStream } from '@matrixai/quic';
import { Deadline } from '../concurrency/deadline.ts';
import { sleep, untilAborted } from './abortable.ts';
import { internalErrorResponse } from './fallback-responses.ts';
import type { MarkPeer } from './peer.ts';
import type { PeerHoldings } from './peer-holdings.ts';
import type { PerIpRateLimiter } from './rate-limit.ts';
import { onPeerAbandoned } from './peer-abandonment.ts';
import { readBounded, writeAndFinish } from './stream-io.ts';

export interface IncomingMarkRequest {
  /** The request as read, at most `maxRequestBytes` bytes. */
  bytes: Uint8Array;
  /**
   * True when the client sent more than `maxRequestBytes`: reading stopped there.
   * Mark SPEC §11.3: a request over its limits is answered `server-error` with
   * "could not read request".
   */
  truncated: boolean;
  /**
   * Aborts when the request timeout passes, the listener closes, or the client
   * gives up on the request (resets or stops its stream: src/transport/peer-abandonment.ts).
   */
  signal: AbortSignal;
}

/**
 * An answer written over time on the request's stream (WATCH, Mark SPEC §6.8):
 * `run` writes as it pleases until it resolves, then the stream gets its FIN.
 * It is exempt from the request timeout and ends when `signal` aborts: the
 * listener closing, or the client resetting or stopping the stream (noticed at
 * once, not at the next write).
 */
export interface StreamedAnswer {
  readonly streamed: true;
  /**
   * How long one write, or the closing FIN, may wait for the peer's QUIC
   * flow-control credit; default unbounded. A peer that stops reading stops
   * granting credit (RFC 9000 §4.1), so without a bound its answer, and what
   * the answer holds, would wait for as long as the connection lives. When
   * the bound passes, the write rejects and the stream is reset.
   */
  readonly writeTimeoutMs?: number;
  run(write: (bytes: Uint8Array) => Promise<void>, signal: AbortSignal): Promise<void>;
}

/** Produces the complete response bytes for one request, or an answer streamed over time. */
export type MarkRequestHandler = (request: IncomingMarkRequest, peer: MarkPeer) => Promise<Uint8Array | StreamedAnswer>;

/** The listener logs through this when given one; it never logs request contents. */
export interface TransportLogger {
  warn(fields: Record<string, unknown>, message: string): void;
}

export interface StreamServing {
  handler: MarkRequestHandler;
  maxRequestBytes: number;
  requestTimeoutMs: number;
  limiter: PerIpRateLimiter;
  /** Bytes of unfinished exchanges per IP (src/transport/peer-holdings.ts). */
  holdings: PeerHoldings;
  rateLimited: (peer: MarkPeer) => Uint8Array;
  onError: (error: unknown, peer: MarkPeer) => Uint8Array;
  logger: TransportLogger | undefined;
  /** Aborts when the listener closes. */
  closing: AbortSignal;
}

export async function serveStream(stream: QUICStream, peer: MarkPeer, serving: StreamServing): Promise<void> {
  try {
    if (await admitted(peer, serving)) await answer(stream, peer, serving);
    else await refuse(stream, peer, serving);
  } catch (error) {
    // A reset, not a FIN: the client must not take a cut-off answer for a whole one.
    stream.cancel(error);
  }
}

/**
 * Go's worldruntime waits for the peer's token up to one request timeout and
 * refuses at once when the token would come later.
 */
async function admitted(peer: MarkPeer, serving: StreamServing): Promise<boolean> {
  const waitMs = serving.limiter.reserve(peer.host, serving.requestTimeoutMs);
  if (waitMs === null) return false;
  if (waitMs > 0) await sleep(waitMs, serving.closing);
  return true;
}

async function refuse(stream: QUICStream, peer: MarkPeer, serving: StreamServing): Promise<void> {
  serving.logger?.warn({ ip: peer.host }, 'mark request rate limited');
  // The request is not read: stop the client sending it, then answer.
  stream.readable.cancel('rate limited').catch(() => {});
  const deadline = requestDeadline(serving);
  try {
    await untilAborted(writeAndFinish(stream.writable, serving.rateLimited(peer)), deadline.signal);
  } finally {
    deadline.end();
  }
}

/**
 * The request's bytes stay charged to the peer's address until the exchange
 * ends (answer written or stream reset), so neither half-sent requests nor
 * answers left unread let one address hold more than its share.
 */
async function answer(stream: QUICStream, peer: MarkPeer, serving: StreamServing): Promise<void> {
  const deadline = requestDeadline(serving);
  const signal = deadline.signal;
  // A client that gave up (its attempt timed out, so it will retry) must not leave its
  // request's work running to the deadline beside the retry's: the reset calls it off.
  const stopNoticing = onPeerAbandoned(stream, (reason) => deadline.abort(reason));
  let held = 0;
  const admit = (bytes: number): boolean => {
    if (!serving.holdings.charge(peer.host, bytes)) return false;
    held += bytes;
    return true;
  };
  try {
    const read = await readBounded(stream.readable, serving.maxRequestBytes, signal, admit);
    if (read.refused === true) {
      serving.logger?.warn(
        { ip: peer.host },
        'mark request refused: the address holds its share of unfinished requests',
      );
      await untilAborted(writeAndFinish(stream.writable, serving.rateLimited(peer)), signal);
      return;
    }
    const response = await respond({ bytes: read.bytes, truncated: read.truncated, signal }, peer, serving);
    if (response instanceof Uint8Array) {
      await untilAborted(writeAndFinish(stream.writable, response), signal);
      return;
    }
    // A streamed answer (WATCH) holds no request bytes once it runs: release
    // them now so a long watch does not count against the address's share.
    serving.holdings.release(peer.host, held);
    held = 0;
    // It runs past the request timeout, until the listener closes or the client leaves.
    deadline.stopClock();
    await streamAnswer(stream, response, signal);
  } finally {
    stopNoticing();
    deadline.end();
    serving.holdings.release(peer.host, held);
  }
}

async function streamAnswer(stream: QUICStream, answer: StreamedAnswer, signal: AbortSignal): Promise<void> {
  const writer = stream.writable.getWriter();
  const { writeTimeoutMs } = answer;
  const bounded = (work: Promise<void>): Promise<void> =>
    writeTimeoutMs === undefined ? work : withinWriteTimeout(work, writeTimeoutMs);
  try {
    await answer.run((bytes) => bounded(writer.write(bytes)), signal);
    // Closing waits behind a stalled write too, so the FIN gets the same bound.
    await bounded(writer.close());
  } finally {
    // A write still pending is ended by the reset serveStream sends when this rejects.
    writer.releaseLock();
  }
}

/** Settles like `write`, or rejects once `ms` pass first (the peer stopped reading). */
async function withinWriteTimeout(write: Promise<void>, ms: number): Promise<void> {
  const deadline = new Deadline(ms);
  try {
    await untilAborted(write, deadline.signal);
  } catch (error) {
    if (!deadline.timedOut) throw error;
    throw new Error(`the peer took no data for ${ms} ms (it stopped reading); the stream is reset`, { cause: error });
  } finally {
    deadline.end();
  }
}

/** The request timeout and the listener's closing; ended as soon as the exchange is. */
function requestDeadline(serving: StreamServing): Deadline {
  return new Deadline(serving.requestTimeoutMs, serving.closing);
}

/** The handler's answer, or the onError answer when it fails before the deadline. */
async function respond(
  request: IncomingMarkRequest,
  peer: MarkPeer,
  serving: StreamServing,
): Promise<Uint8Array | StreamedAnswer> {
  try {
    const response = await untilAborted(
      Promise.resolve().then(() => serving.handler(request, peer)),
      request.signal,
    );
    if (!(response instanceof Uint8Array) && response?.streamed !== true)
      throw new TypeError('mark request handler must return a Uint8Array or a StreamedAnswer');
    return response;
  } catch (error) {
    if (request.signal.aborted) throw error;
    serving.logger?.warn({ ip: peer.host, error: describe(error) }, 'mark request handler failed');
    return errorAnswer(error, peer, serving);
  }
}

function errorAnswer(error: unknown, peer: MarkPeer, serving: StreamServing): Uint8Array {
  try {
    const response = serving.onError(error, peer);
    if (response instanceof Uint8Array) return response;
  } catch (nested) {
    serving.logger?.warn({ ip: peer.host, error: describe(nested) }, 'mark onError callback failed');
  }
  return internalErrorResponse();
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
