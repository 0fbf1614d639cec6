/** Worlds: URL grammar, writer allowlist, registry, per-world connections and the gateway. */
export { WorldGatewayError, WriteDeniedError, WorldUnavailableError } from './gateway.ts';
export type { WorldChangeSource, WorldGateway, WorldInfo, WorldUnavailableReason } from './gateway.ts';
export { parseWorldUrl, WorldUrlError } from './world-url.ts';
export type { WorldUrl } from './world-url.ts';
export { worldAllows, openAllowList } from './allowlist.ts';
export type { AllowList } from './allowlist.ts';
export { WorldRegistry } from './registry.ts';
export type { WorldChange, WorldChangeListener } from './registry.ts';
export {
  resolveWorldAddress,
  worldDefinitionFromConfig,
  worldDefinitionsFromConfig,
  worldInfoOf,
} from './world-definition.ts';
export type { WorldDefinition } from './world-definition.ts';
export { CircuitBreaker } from './circuit-breaker.ts';
export type { CircuitState, CircuitTicket, CircuitBreakerOptions } from './circuit-breaker.ts';
export { noopWorldGatewayMetrics } from './metrics.ts';
export type { WorldGatewayMetrics } from './metrics.ts';
export { WorldConnection } from './world-connection.ts';
export { healthLine, unknownHealth } from './world-health.ts';
export type { WorldHealth, WorldHealthState } from './world-health.ts';
export type { WorldDialerSettings } from './world-connection.ts';
export { sendWithFirstMintRetry } from './first-mint.ts';
export type { FirstMintPolicy, FirstMintSteps } from './first-mint.ts';
export { MarkWorldGateway } from './mark-world-gateway.ts';
export type { MarkWorldGatewayOptions } from './mark-world-gateway.ts';
export {
  openWorldGateway,
  writeTokenBackendFor,
  dialerSettingsOf,
  StorageBackendUnavailableError,
} from './open-gateway.ts';
export type { OpenWorldGatewayOptions, WriteTokenBackend } from './open-gateway.ts';
export { goQuote } from '../../protocol/go-quote.ts';
export * from './write-tokens/index.ts';
export { firstListingProblem, listedAsAbsent, walkWorld } from './world-walk.ts';
export type { WalkLimits, WalkOptions, WorldListing } from './world-walk.ts';
