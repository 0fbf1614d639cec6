import type { BrokerConfig } from './config/index.ts';
import type { WriteTokenBackend } from './worlds/open-gateway.ts';
import type { WorldRegistry } from './worlds/registry.ts';
import type { StateDocumentStore } from './state/document-store.ts';
import { worldAuthorities } from './worlds/world-aliases.ts';
import { worldDefinitionsFromConfig } from './worlds/world-definition.ts';
import { hostname } from 'node:os';
import {
  kubernetesApis,
  kubernetesBackends,
  LeaseElector,
  registrySink,
  runLeaderSweeper,
  WorldDiscovery,
  type KubernetesApis,
  type WorldDiscoveryOptions,
} from './kubernetes/index.ts';
import { rateLimitedReport } from './kubernetes/rate-limited-report.ts';

/**
 * Where the broker keeps what must survive it, chosen by `storage.backend`:
 * with `kubernetes`, write tokens and tokens.toml entries in Secrets and broker
 * state in broker-namespace Secrets; with `file`, `undefined` lets each part use
 * its file backend under `storage.dir`. One Kubernetes client serves both this
 * and discovery.
 */
export type ClusterServices = {
  writeTokens?: WriteTokenBackend;
  state?: StateDocumentStore;
  apis?: KubernetesApis;
};

export function clusterServices(config: BrokerConfig): ClusterServices {
  const needsApi = config.storage.backend === 'kubernetes' || config.discovery.enabled;
  if (!needsApi) return {};
  const apis = kubernetesApis();
  if (config.storage.backend !== 'kubernetes') return { apis };
  const backends = kubernetesBackends(config, apis);
  return { apis, writeTokens: backends.writeTokens, state: backends.state };
}

/** Where discovery tells operators what it refused and what failed (the broker logs and counts them). */
export type DiscoveryReports = Pick<WorldDiscoveryOptions, 'onIssue' | 'onError' | 'onConflicts' | 'onRefused'>;

/**
 * Live world discovery (`discovery.enabled`): labelled Services join and leave
 * the registry while the broker runs; configured worlds always win.
 * Returns the stop function, or null when discovery is off.
 */
export async function startDiscovery(
  config: BrokerConfig,
  services: ClusterServices,
  registry: WorldRegistry,
  reports: DiscoveryReports = {},
): Promise<(() => Promise<void>) | null> {
  if (!config.discovery.enabled || services.apis === undefined) return null;
  const discovery = new WorldDiscovery({
    kubeConfig: services.apis.kubeConfig,
    namespaces: config.discovery.namespaces.length === 0 ? 'all' : config.discovery.namespaces,
    sink: registrySink(registry),
    configuredWorlds: config.worlds.map((w) => w.name),
    configuredAuthorities: worldDefinitionsFromConfig(config).flatMap(worldAuthorities),
    clusterDomain: config.discovery.clusterDomain,
    maxWorlds: config.discovery.maxWorlds,
    // Shared by the replicas only on the Kubernetes backend; with files each replica keeps its own.
    ...(services.state ? { state: services.state } : {}),
    ...reports,
  });
  await discovery.start();
  return () => discovery.stop();
}

/** Whether the refresh-token sweep must be leader-elected: several replicas share Secret-backed state. */
export function sweepsByLease(config: BrokerConfig, services: ClusterServices): boolean {
  return config.storage.backend === 'kubernetes' && services.apis !== undefined && !config.sweeper.disabled;
}

/** Lease failures repeat on every retry (2 s): one warning a minute says as much. */
export const electionReportIntervalMs = 60_000;

/**
 * As the Go broker's `sweeper.go`: only the replica holding the Lease `sweeper.leaseName` sweeps,
 * once on taking the lead and then every `sweeper.interval`. The Lease names
 * this replica by `POD_NAME` (the chart sets it), else the host name.
 * `onElectionError` hears failed Lease calls (a KubernetesBackendError naming
 * the Lease and the HTTP status, no bodies), at most one a minute.
 */
export function startLeaderSweep(
  config: BrokerConfig,
  services: ClusterServices,
  /** One pass; it gets the leadership signal and must stop when it aborts (leadership lost or stopping). */
  sweep: (leadership: AbortSignal) => Promise<void>,
  onError: (error: unknown) => void,
  onElectionError: (error: unknown) => void = () => {},
): () => Promise<void> {
  const namespace = config.server.brokerNamespace;
  if (services.apis === undefined || namespace === undefined) return async () => {};
  const elector = new LeaseElector({
    coordination: services.apis.coordination,
    namespace,
    name: config.sweeper.leaseName,
    identity: process.env.POD_NAME || hostname() || 'broker',
    onError: rateLimitedReport(onElectionError, electionReportIntervalMs),
  });
  const stop = new AbortController();
  const running = runLeaderSweeper(stop.signal, {
    elector,
    intervalMs: config.sweeper.interval,
    sweep,
    onError,
  });
  return async () => {
    stop.abort();
    await running.catch(() => undefined);
  };
}
