/**
 * A UDP port that takes every datagram and answers none: a world whose pod is
 * gone but whose address still routes. Each QUIC dial comes from its own
 * socket (src/transport/client.ts), so distinct source ports count dials,
 * while a dial's own retransmissions of its Initial packet, which may still
 * arrive after the dial gave up, add no dial.
 */
import { createSocket } from 'node:dgram';

export type BlackHole = {
  readonly port: number;
  /** Distinct dials (source ports) seen so far. */
  dials(): number;
  close(): void;
};

export async function blackHole(): Promise<BlackHole> {
  const socket = createSocket('udp4');
  const sources = new Set<number>();
  socket.on('message', (_message, from) => {
    sources.add(from.port);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    port: socket.address().port,
    dials: () => sources.size,
    close: () => socket.close(),
  };
}
