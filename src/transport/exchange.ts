/**
 * One request/response exchange on a fresh stream (Mark SPEC §3): write the request
 * and FIN, read the response to FIN. The write runs beside the read, because a
 * server may answer early and stop our sending (an oversized or rate-limited
 * request): a complete answer wins over a failed write.
 */
import { ResponseTooLargeError } from './errors.ts';
import type { PooledConnection } from './pooled-connection.ts';
import { readBounded, writeAndFinish } from './stream-io.ts';

export interface ExchangeProgress {
  /** Set once request bytes may have left: from here a write's outcome is unknown on failure. */
  sent: boolean;
}

export interface ExchangeLimits {
  maxResponseBytes: number;
  /** Aborts on timeout or caller abort; the stream is reset then. */
  signal: AbortSignal;
}

export async function exchange(
  connection: PooledConnection,
  request: Uint8Array,
  limits: ExchangeLimits,
  progress: ExchangeProgress,
): Promise<Uint8Array> {
  const { stream, release } = await connection.openStream(limits.signal);
  const resetOnAbort = (): void => stream.cancel(limits.signal.reason);
  limits.signal.addEventListener('abort', resetOnAbort, { once: true });
  try {
    progress.sent = true;
    writeAndFinish(stream.writable, request).catch(() => {});
    const response = await readBounded(stream.readable, limits.maxResponseBytes, limits.signal);
    if (response.truncated) {
      stream.cancel(new ResponseTooLargeError(limits.maxResponseBytes));
      throw new ResponseTooLargeError(limits.maxResponseBytes);
    }
    return response.bytes;
  } catch (error) {
    stream.cancel(error);
    throw error;
  } finally {
    limits.signal.removeEventListener('abort', resetOnAbort);
    release();
  }
}
