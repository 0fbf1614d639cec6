/**
 * The only place that looks past @matrixai/quic's public API. Version 2.0.9 keeps
 * the quiche connection in the protected field `conn` and exposes neither the SNI
 * a client asked for nor the peer's remaining stream credit. Both are read-only
 * looks; when a later version drops the field, the answers become `undefined` and
 * callers fall back (no SNI in `peer`, semaphore-only stream gating). It also
 * keeps its UDP socket in protected fields (`socket.socket`) and offers no option
 * for the socket's buffer sizes, which we set there (src/transport/datagrams.ts).
 * test/transport/quic-internals.test.ts fails if any of these stops working.
 */
import type { Socket } from 'node:dgram';
import type { QUICClient, QUICConnection, QUICServer } from '@matrixai/quic';

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

function udpSocketOf(owner: QUICClient | QUICServer): Socket | undefined {
  const quicSocket = (owner as unknown as { socket?: { socket?: unknown } }).socket;
  const udp = quicSocket?.socket;
  return typeof udp === 'object' && udp !== null && 'setRecvBufferSize' in udp ? (udp as Socket) : undefined;
}

/**
 * Asks the kernel for `bytes` of receive and send buffer on the client's or
 * server's UDP socket (capped by net.core.rmem_max / wmem_max). Returns the
 * receive buffer granted, or undefined when the socket cannot be reached.
 */
export function setSocketBuffers(owner: QUICClient | QUICServer, bytes: number): number | undefined {
  const udp = udpSocketOf(owner);
  if (udp === undefined) return undefined;
  try {
    udp.setRecvBufferSize(bytes);
    udp.setSendBufferSize(bytes);
    return udp.getRecvBufferSize();
  } catch {
    return undefined;
  }
}
