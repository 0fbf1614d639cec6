/**
 * The only place that looks past @matrixai/quic's public API. Version 2.0.9 keeps
 * the quiche connection in the protected field `conn` and exposes neither the SNI
 * a client asked for nor the peer's remaining stream credit. Both are read-only
 * looks; when a later version drops the field, the answers become `undefined` and
 * callers fall back (no SNI in `peer`, semaphore-only stream gating).
 * test/transport/quic-internals.test.ts fails if either look stops working.
 */
import type { QUICConnection } from '@matrixai/quic';

interface NativeConnectionView {
  serverName?: () => string | null;
  peerStreamsLeftBidi?: () => number;
}

function nativeOf(connection: QUICConnection): NativeConnectionView | undefined {
  const candidate = (connection as unknown as { conn?: unknown }).conn;
  return typeof candidate === 'object' && candidate !== null ? (candidate as NativeConnectionView) : undefined;
}

/** The TLS SNI the client sent on a server-side connection, if the library lets us see it. */
export function requestedServerName(connection: QUICConnection): string | undefined {
  const native = nativeOf(connection);
  if (typeof native?.serverName !== 'function') return undefined;
  try {
    return native.serverName() ?? undefined;
  } catch {
    return undefined;
  }
}

/**
 * How many more bidirectional streams the peer currently allows us to open.
 * Opening one past the credit makes `newStream` throw ErrorQUICStreamLimit, and in
 * 2.0.9 that throw leaves the connection unable to open any further stream (the
 * failed stream id stays marked as used), so callers check before opening.
 */
export function peerBidiStreamsLeft(connection: QUICConnection): number | undefined {
  const native = nativeOf(connection);
  if (typeof native?.peerStreamsLeftBidi !== 'function') return undefined;
  try {
    return native.peerStreamsLeftBidi();
  } catch {
    return undefined;
  }
}
