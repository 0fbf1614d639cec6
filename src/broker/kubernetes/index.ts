/**
 * Kubernetes backends of the broker: write tokens and shared state in
 * Secrets, Lease leader election for the sweeper, and live world discovery
 * from labelled Services; plus the world chart's tokens bootstrap.
 * `kubernetesApiCalls` lists every API call they make (the charts' RBAC is
 * tested against it).
 */
export { kubernetesApis, type KubernetesApis } from './kube-clients.ts';
export { kubernetesBackends, type KubernetesBackends } from './backends.ts';
export {
  kubernetesApiCalls,
  worldBootstrapApiCalls,
  stateSecretNames,
  type KubernetesApiCall,
  type BootstrapApiCall,
  type ApiCallScope,
  type ApiCallObjects,
} from './api-calls.ts';
export { KubernetesBackendError, type KubernetesBackendErrorCode } from './errors.ts';
export {
  mutateSecret,
  readSecret,
  maxSecretWriteAttempts,
  type SecretRef,
  type SecretMutation,
  type MutateOptions,
  type MutateOutcome,
} from './mutate-secret.ts';
export {
  SecretWriteTokenStore,
  writeTokenSecretName,
  writeTokenSecretKey,
  brokerSecretLabels,
} from './secret-write-token-store.ts';
export { SecretTokensSink, tokensSecretKey } from './secret-tokens-sink.ts';
export { SecretStateStore, defaultDocumentLocation, type DocumentLocation } from './secret-state-store.ts';
export { LeaseElector, defaultLeaseTimings, type LeaseElectorOptions } from './lease-elector.ts';
export { runLeaderSweeper, type LeaderSweeper } from './leader-sweeper.ts';
export { formatMicroTime, parseMicroTime } from './micro-time.ts';
export { WorldDiscovery, defaultRestartBackoff, type WorldDiscoveryOptions } from './world-discovery.ts';
export { DiscoveryIndex, type DiscoveredWorldSink, type DiscoveryIssue } from './discovery-index.ts';
export { registrySink, discoveredWorldDefinition, discoveredWorldWriters } from './registry-sink.ts';
export {
  worldFromService,
  worldLabel,
  worldLabelSelector,
  publicUrlAnnotation,
  type DiscoveredWorld,
  type ServiceReading,
} from './service-world.ts';
export {
  bootstrapWorldTokens,
  adminTokenKey,
  type WorldTokensBootstrap,
  type BootstrapResult,
} from './world-tokens-bootstrap.ts';
export { systemClock, type Clock } from './clock.ts';
