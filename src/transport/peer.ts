/** Who is on the other end of a server-side stream. */
import type { QUICConnection } from '@matrixai/quic';
import { requestedServerName } from './quic-internals.ts';

export interface MarkPeer {
  /** Remote IP address (IPv4-mapped IPv6 addresses are given as plain IPv4). */
  host: string;
  port: number;
  /** The TLS SNI the client sent, when it sent one. */
  serverName?: string;
}

/** Read per stream, not per connection: QUIC lets the peer's address change (migration). */
export function peerOf(connection: QUICConnection): MarkPeer {
  const peer: MarkPeer = { host: normalisePeerHost(connection.remoteHost), port: connection.remotePort };
  const serverName = requestedServerName(connection);
  if (serverName !== undefined && serverName !== '') peer.serverName = serverName;
  return peer;
}

/** `::ffff:127.0.0.1` (a dual-stack socket's view of an IPv4 peer) becomes `127.0.0.1`. */
export function normalisePeerHost(host: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(host);
  return mapped?.[1] ?? host;
}
