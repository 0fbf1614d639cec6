/**
 * From a loaded BrokerConfig to a running gateway: the configured worlds,
 * world TLS from `worldDialer`, the write-token backend of `storage.backend`,
 * and the first-mint policy of `server.mcp`. Adding a storage backend (the
 * Kubernetes Secrets one) means adding a branch to `writeTokenBackendFor`
 * only; the gateway does not change.
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { ConfigError, type BrokerConfig } from '../config/index.ts';
import type { WorldGatewayMetrics } from './metrics.ts';
import { MarkWorldGateway } from './mark-world-gateway.ts';
import { WorldRegistry } from './registry.ts';
import { worldDefinitionsFromConfig } from './world-definition.ts';
import type { WorldDialerSettings } from './world-connection.ts';
import {
  FileTokensSink,
  FileWriteTokenStore,
  WriteTokenProvisioner,
  type WorldTokensSink,
  type WriteTokenStore,
} from './write-tokens/index.ts';
import { errorWithCode } from '../../errors/coded-error.ts';

export type WriteTokenBackend = { store: WriteTokenStore; sink: WorldTokensSink };

export type OpenWorldGatewayOptions = {
  metrics?: WorldGatewayMetrics;
  /** Replaces the backend chosen by `storage.backend` (tests, or a backend wired by the caller). */
  writeTokens?: WriteTokenBackend;
  now?: () => number;
  wait?: (ms: number, signal: AbortSignal | undefined) => Promise<void>;
};

export class StorageBackendUnavailableError extends errorWithCode('ERR_STORAGE_BACKEND_UNAVAILABLE') {}

export async function openWorldGateway(
  config: BrokerConfig,
  options: OpenWorldGatewayOptions = {},
): Promise<MarkWorldGateway> {
  const dialer = await dialerSettingsOf(config);
  const backend = options.writeTokens ?? writeTokenBackendFor(config);
  const { mcp } = config.server;
  return new MarkWorldGateway({
    registry: new WorldRegistry(worldDefinitionsFromConfig(config)),
    dialer,
    writeTokens: new WriteTokenProvisioner(backend.store, backend.sink),
    firstMint: {
      maxAttempts: mcp.firstMintMaxAttempts,
      initialBackoffMs: mcp.firstMintInitialBackoff,
      maxBackoffMs: mcp.firstMintMaxBackoff,
    },
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    ...(options.now === undefined ? {} : { now: options.now }),
    ...(options.wait === undefined ? {} : { wait: options.wait }),
  });
}

export function writeTokenBackendFor(config: BrokerConfig): WriteTokenBackend {
  if (config.storage.backend === 'file' && config.storage.dir !== undefined) {
    return { store: new FileWriteTokenStore(config.storage.dir), sink: new FileTokensSink() };
  }
  throw new StorageBackendUnavailableError(
    `storage.backend ${JSON.stringify(config.storage.backend)} is not available in this build yet; use "file"`,
  );
}

export async function dialerSettingsOf(config: BrokerConfig): Promise<WorldDialerSettings> {
  const { worldDialer } = config;
  const ca = worldDialer.caFile === undefined ? undefined : await readCaBundle(worldDialer.caFile);
  return {
    ...(ca === undefined ? {} : { ca }),
    insecureSkipVerify: worldDialer.insecureSkipVerify,
    dialTimeoutMs: worldDialer.dialTimeout,
    requestTimeoutMs: worldDialer.requestTimeout,
    attemptTimeoutMs: worldDialer.attemptTimeout || Math.ceil(worldDialer.requestTimeout / 2),
    failureThreshold: worldDialer.failureThreshold,
    cooldownMs: worldDialer.cooldown,
  };
}

async function readCaBundle(path: string): Promise<string> {
  let pem: string;
  try {
    pem = await readFile(path, 'utf8');
  } catch (cause) {
    const reason = (cause as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new ConfigError(
      'ERR_CONFIG_READ',
      `config: worldDialer.caFile: cannot read ${JSON.stringify(path)} (${reason})`,
      { keyPath: 'worldDialer.caFile', cause },
    );
  }
  try {
    new X509Certificate(pem);
  } catch (cause) {
    throw new ConfigError('ERR_CONFIG_INVALID', 'config: worldDialer.caFile: must hold PEM certificates', {
      keyPath: 'worldDialer.caFile',
      cause,
    });
  }
  return pem;
}
