/** Shared set-up for transport tests: one dev certificate, echo listeners, clients. */
import { QUICClient, type QUICConfig } from '@matrixai/quic';
import { clientCryptoOps, silentQuicLogger } from '../../src/transport/quic-support.ts';
import { generateDevCertificate } from '../../src/transport/tls.ts';
import type { TlsKeyPair } from '../../src/transport/tls.ts';
import { startMarkListener } from '../../src/transport/server.ts';
import type { MarkListener, MarkListenerOptions } from '../../src/transport/server.ts';
import { MarkTransportClient } from '../../src/transport/client.ts';
import type { MarkTransportClientOptions } from '../../src/transport/client.ts';
import type { MarkAuthority } from '../../src/transport/authority.ts';

let certificate: Promise<TlsKeyPair> | undefined;

/** One self-signed certificate per test file: generating one takes a few milliseconds, not nothing. */
export function devCertificate(): Promise<TlsKeyPair> {
  certificate ??= generateDevCertificate({ hostNames: ['world.test'] });
  return certificate;
}

export const encoder = new TextEncoder();
export const decoder = new TextDecoder();

export function text(bytes: Uint8Array): string {
  return decoder.decode(bytes);
}

/** Answers `echo:<request>`; tests swap in other handlers where they need them. */
export async function echoListener(overrides: Partial<MarkListenerOptions> = {}): Promise<MarkListener> {
  return startMarkListener({
    host: '127.0.0.1',
    port: 0,
    tls: await devCertificate(),
    handler: async (request) => concatBytes(encoder.encode('echo:'), request.bytes),
    ...overrides,
  });
}

export async function trustingClient(options: MarkTransportClientOptions = {}): Promise<MarkTransportClient> {
  return new MarkTransportClient({ ca: (await devCertificate()).cert, ...options });
}

/** Dial the loopback listener by IP while presenting a name in the certificate. */
export function authorityOf(listener: { port: number }, serverName = 'localhost'): MarkAuthority {
  return { host: serverName, port: listener.port, dialHost: '127.0.0.1' };
}

export function concatBytes(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.byteLength + b.byteLength);
  out.set(a, 0);
  out.set(b, a.byteLength);
  return out;
}

/** A promise and its resolver, for handlers a test releases by hand. */
export function gate<T = void>(): { promise: Promise<T>; open: (value: T) => void } {
  let open!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/**
 * A bare `@matrixai/quic` client (no Mark transport on top) that trusts the dev
 * certificate, for tests that look at the library itself; `config` adds to the
 * Mark ALPN and peer verification.
 */
export async function bareQuicClient(port: number, config: Partial<QUICConfig> = {}): Promise<QUICClient> {
  return QUICClient.createQUICClient({
    host: '127.0.0.1',
    port,
    serverName: 'localhost',
    crypto: { ops: clientCryptoOps },
    logger: silentQuicLogger(),
    config: { applicationProtos: ['mark'], verifyPeer: true, ca: (await devCertificate()).cert, ...config },
  });
}
