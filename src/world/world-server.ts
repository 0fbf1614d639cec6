import {
  addressKey,
  startMarkListener,
  generateDevCertificate,
  rateLimitedResponse,
  internalErrorResponse,
  type TlsKeyPair,
} from '../transport/index.ts';
import { openWorld, type World, type WorldOptions } from './world.ts';
import { loopbackNames } from '../transport/loopback.ts';

export type WorldServerOptions = WorldOptions & {
  listen: { host: string; port: number };
  /** A key pair (the CLI loads and checks PEM files with loadTlsFiles), or 'dev' for a self-signed development certificate. */
  tls: TlsKeyPair | 'dev';
  rateLimit?: { perSecond: number; burst: number };
  requestTimeoutMs?: number;
};

export type WorldServer = {
  readonly world: World;
  readonly host: string;
  readonly port: number;
  /** Set when the server made its own certificate; clients can trust `certPem`. */
  readonly devCertificate: { certPem: string; names: string[] } | null;
  /** Stops taking requests, lets those in flight finish for up to `graceMs` (default 0), then closes. */
  close(options?: { graceMs?: number }): Promise<void>;
};

const devNames = [...loopbackNames];

/** A world behind a QUIC listener: what `demarkus-broker world` and the dev stack run. */
export async function startWorldServer(options: WorldServerOptions): Promise<WorldServer> {
  const { tls, dev } = await resolveTls(options.tls);
  const world = await openWorld(options);
  try {
    const listener = await startMarkListener({
      host: options.listen.host,
      port: options.listen.port,
      tls,
      handler: (incoming, peer) => world.serve({ ...incoming, from: addressKey(peer.host) }),
      limits: {
        ...(options.rateLimit
          ? { ratePerSecond: options.rateLimit.perSecond, rateBurst: options.rateLimit.burst }
          : {}),
        ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      },
      rateLimited: rateLimitedResponse,
      onError: (error) => {
        world.context.log.error({ err: error instanceof Error ? error.message : String(error) }, 'handler failed');
        return internalErrorResponse();
      },
      logger: world.context.log,
    });
    return {
      world,
      host: listener.host,
      port: listener.port,
      devCertificate: dev ? { certPem: tls.cert, names: devNames } : null,
      async close(closeOptions = {}) {
        await listener.close(closeOptions);
        await world.close();
      },
    };
  } catch (error) {
    await world.close();
    throw error;
  }
}

async function resolveTls(option: WorldServerOptions['tls']): Promise<{ tls: TlsKeyPair; dev: boolean }> {
  if (option === 'dev') return { tls: await generateDevCertificate({ hostNames: devNames }), dev: true };
  return { tls: option, dev: false };
}
