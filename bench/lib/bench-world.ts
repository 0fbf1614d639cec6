/**
 * One world server over real QUIC on loopback, in this process, on a scratch
 * store, with a MarkClient trusting its development certificate and a direct
 * line to its handler (no QUIC) for the same requests.
 */
import { join } from 'node:path';
import { encodeRequest } from '../../src/protocol/request.ts';
import type { Metadata } from '../../src/protocol/metadata.ts';
import type { MarkAuthority } from '../../src/transport/authority.ts';
import { MarkClient } from '../../src/transport/mark-client.ts';
import { generateDevCertificate } from '../../src/transport/tls.ts';
import { startWorldServer } from '../../src/world/world-server.ts';
import { makeScratchDirectory, removeScratchDirectory } from './scratch.ts';

export interface BenchWorld {
  server: Awaited<ReturnType<typeof startWorldServer>>;
  client: MarkClient;
  authority: MarkAuthority;
  /** The request answered by the world's handler, without QUIC. */
  handle(verb: 'FETCH' | 'LOOKUP', path: string, metadata?: Metadata): Promise<Uint8Array>;
  close(): Promise<void>;
}

export async function startBenchWorld(name: string): Promise<BenchWorld> {
  const dir = await makeScratchDirectory(`bench-${name}-`);
  const tls = await generateDevCertificate();
  const server = await startWorldServer({
    root: join(dir, 'root'),
    listen: { host: '127.0.0.1', port: 0 },
    tls,
    rateLimit: { perSecond: 0, burst: 1 },
  });
  const client = new MarkClient({ ca: tls.cert });
  return {
    server,
    client,
    authority: { host: 'localhost', port: server.port, dialHost: '127.0.0.1' },
    handle: (verb, path, metadata = {}) =>
      server.world.handle({ bytes: encodeRequest({ verb, path, metadata, body: new Uint8Array() }) }),
    async close() {
      await client.close();
      await server.close();
      await removeScratchDirectory(dir);
    },
  };
}
