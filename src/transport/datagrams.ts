/**
 * UDP settings the QUIC library leaves at values made for the open Internet,
 * measured in bench/large-documents.ts and bench/quic-patches.ts:
 * - the kernel's default socket buffers (about 208 KiB) overflow while the
 *   process is busy elsewhere, and every dropped datagram sends quiche into loss
 *   recovery; larger buffers (the kernel caps them at net.core.rmem_max and
 *   wmem_max) remove those losses;
 * - the library reads a stream 4 KiB at a time, one pull per 4 KiB;
 * - 1,350-byte datagrams are right for a real network path, whose MTU we do not
 *   know (no path MTU discovery here), but a loopback path has a 64 KiB MTU:
 *   when both ends are on loopback, 16 KiB datagrams carry a large document in a
 *   twelfth of the packets. Each end decides alone: a listener only when bound to
 *   a loopback address (so it can never send a large datagram to another host),
 *   a client only when dialing one; QUIC then sends the smaller of the two sides'
 *   limits (RFC 9000 §18.2, max_udp_payload_size).
 */
import ipaddr from 'ipaddr.js';
import type { QUICConfig } from '@matrixai/quic';

/** Socket receive and send buffer asked of the kernel for every QUIC socket. */
export const socketBufferBytes = 4 * 1_048_576;

/** Bytes read from a stream per pull. */
export const streamReadChunkBytes = 16_384;

/** UDP payload on a loopback path; the library's default elsewhere. */
export const loopbackDatagramBytes = 16_384;

export function isLoopbackHost(host: string): boolean {
  if (host === 'localhost') return true;
  if (!ipaddr.isValid(host)) return false;
  return ipaddr.process(host).range() === 'loopback';
}

/** Library settings for a socket bound to (listener) or dialing (client) `host`. */
export function datagramSettings(host: string): Partial<QUICConfig> {
  const settings: Partial<QUICConfig> = { readableChunkSize: streamReadChunkBytes };
  if (isLoopbackHost(host)) {
    settings.maxSendUdpPayloadSize = loopbackDatagramBytes;
    settings.maxRecvUdpPayloadSize = loopbackDatagramBytes;
  }
  return settings;
}
