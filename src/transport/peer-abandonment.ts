/**
 * Noticing that the client of a request gave up on it. A Mark client that
 * gives up (its attempt timed out, its caller aborted, a WATCH ended) resets
 * its stream both ways (src/transport/client.ts, `stream.cancel`): RESET_STREAM
 * for what it sent and STOP_SENDING for what we send (RFC 9000 §3.1–3.5).
 * Once the request was read to FIN our readable side is finished, so the
 * STOP_SENDING is what tells us, and @matrixai/quic reports it only as an
 * EventQUICStreamError carrying ErrorQUICStreamPeerWrite (QUICStream.js
 * `write()`), dispatched whether or not we are writing at that moment. A
 * connection that closes under the request destroys its streams, which
 * aborts our writable locally (ErrorQUICStreamLocalWrite): that too means
 * nobody is left to take the answer.
 */
import { errors, events } from '@matrixai/quic';
import type { QUICStream } from '@matrixai/quic';

/**
 * Calls `abandoned` once the peer resets or stops the stream, or the stream's
 * writable side is aborted under us; returns the function that stops
 * listening. One listener on the stream, nothing else: this runs per request.
 *
 * Our own local cancel of the readable side (an oversized or refused request,
 * src/transport/stream-io.ts) is not abandonment: the answer is still owed.
 */
export function onPeerAbandoned(stream: QUICStream, abandoned: (reason: Error) => void): () => void {
  const onStreamError = (event: Event): void => {
    const error = (event as events.EventQUICStreamError).detail;
    if (
      error instanceof errors.ErrorQUICStreamPeerWrite ||
      error instanceof errors.ErrorQUICStreamPeerRead ||
      error instanceof errors.ErrorQUICStreamLocalWrite
    ) {
      abandoned(
        new Error('the client reset the stream or stopped reading it: its request is abandoned', { cause: error }),
      );
    }
  };
  stream.addEventListener(events.EventQUICStreamError.name, onStreamError);
  return () => stream.removeEventListener(events.EventQUICStreamError.name, onStreamError);
}
