/**
 * Reading and writing one QUIC stream side. Mark SPEC §3: a message has no length
 * prefix and no terminator; it ends at the sender's FIN, so every read here is
 * "to FIN, but never more than a bound".
 */
import type { ReadableStream, WritableStream } from 'node:stream/web';

export interface BoundedRead {
  /** What arrived, at most `maxBytes` bytes. */
  bytes: Uint8Array;
  /** True when the sender had more than `maxBytes` to give; reading stopped there. */
  truncated: boolean;
  /** True when `admit` refused a chunk: reading stopped before it, and the readable was cancelled. */
  refused?: true;
}

/** Asked before each chunk is kept: false stops the read (a budget shared beyond this stream). */
export type ChunkAdmission = (bytes: number) => boolean;

/**
 * Reads to FIN. Once more than `maxBytes` arrived it stops and cancels the readable,
 * which tells the peer to stop sending (QUIC STOP_SENDING). An aborted `signal`
 * also cancels the readable and rejects with the signal's reason.
 */
export async function readBounded(
  readable: ReadableStream<Uint8Array>,
  maxBytes: number,
  signal?: AbortSignal,
  admit?: ChunkAdmission,
): Promise<BoundedRead> {
  signal?.throwIfAborted();
  const reader = readable.getReader();
  const onAbort = (): void => {
    reader.cancel(signal?.reason).catch(() => {});
  };
  signal?.addEventListener('abort', onAbort, { once: true });
  const chunks: Uint8Array[] = [];
  let total = 0;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      signal?.throwIfAborted();
      if (done) return { bytes: concat(chunks, total), truncated: false };
      if (admit !== undefined && !admit(value.byteLength)) {
        await reader.cancel('request refused').catch(() => {});
        return { bytes: concat(chunks, total), truncated: false, refused: true };
      }
      chunks.push(value);
      total += value.byteLength;
      if (total > maxBytes) {
        await reader.cancel('message exceeds its size bound').catch(() => {});
        return { bytes: concat(chunks, total).subarray(0, maxBytes), truncated: true };
      }
    }
  } finally {
    signal?.removeEventListener('abort', onAbort);
    reader.releaseLock();
  }
}

/** Writes all of `bytes`, then FIN. */
export async function writeAndFinish(writable: WritableStream<Uint8Array>, bytes: Uint8Array): Promise<void> {
  const writer = writable.getWriter();
  try {
    if (bytes.byteLength > 0) await writer.write(bytes);
    await writer.close();
  } finally {
    writer.releaseLock();
  }
}

function concat(chunks: readonly Uint8Array[], total: number): Uint8Array {
  if (chunks.length === 1 && chunks[0] !== undefined) return chunks[0];
  const out = new Uint8Array(total);
  let offset = 0;
  for (const chunk of chunks) {
    out.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return out;
}
