/**
 * What @matrixai/quic needs from its host: crypto callbacks and a logger. Both
 * sides share them, so they live below client and listener.
 */
import { createHmac, randomBytes, timingSafeEqual, webcrypto } from 'node:crypto';
import Logger, { LogLevel } from '@matrixai/logger';
import type { ClientCryptoOps, QUICServerCrypto } from '@matrixai/quic';

/**
 * The library's default logger prints INFO lines for every stream; ours reports
 * through our own options instead, so the library stays silent.
 */
export function silentQuicLogger(): Logger {
  return new Logger('mark-quic', LogLevel.SILENT);
}

/** getRandomValues fills at most 64 KiB per call. */
const maxRandomChunk = 65_536;

export const clientCryptoOps: ClientCryptoOps = {
  async randomBytes(data: ArrayBuffer): Promise<void> {
    for (let offset = 0; offset < data.byteLength; offset += maxRandomChunk) {
      const length = Math.min(maxRandomChunk, data.byteLength - offset);
      webcrypto.getRandomValues(new Uint8Array(data, offset, length));
    }
  },
};

/**
 * The server signs its stateless-retry and reset tokens with a per-listener HMAC
 * key; nothing outlives the process, so a fresh random key per start is enough.
 */
export function serverCrypto(): QUICServerCrypto {
  const key = toArrayBuffer(randomBytes(32));
  return {
    key,
    ops: {
      async sign(signingKey: ArrayBuffer, data: ArrayBuffer): Promise<ArrayBuffer> {
        return toArrayBuffer(hmac(signingKey, data));
      },
      async verify(signingKey: ArrayBuffer, data: ArrayBuffer, signature: ArrayBuffer): Promise<boolean> {
        const expected = hmac(signingKey, data);
        const actual = Buffer.from(signature);
        return actual.length === expected.length && timingSafeEqual(actual, expected);
      },
    },
  };
}

function hmac(key: ArrayBuffer, data: ArrayBuffer): Buffer {
  return createHmac('sha256', Buffer.from(key)).update(Buffer.from(data)).digest();
}

function toArrayBuffer(bytes: Buffer): ArrayBuffer {
  const copy = new ArrayBuffer(bytes.length);
  new Uint8Array(copy).set(bytes);
  return copy;
}
