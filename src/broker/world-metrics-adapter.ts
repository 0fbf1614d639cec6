import type { BrokerMetrics } from './http/metrics.ts';
import type { WorldGatewayMetrics } from './worlds/metrics.ts';
import type { WorldHealth } from './worlds/world-health.ts';

/**
 * The gateway reports in its own terms; this maps them onto the Prometheus
 * series, and hands health changes to `onHealth` (the broker logs them).
 * Circuit state is not reported: the gauge reads it at scrape time
 * (`BrokerMetrics.observeWorlds`).
 */
export function worldMetricsAdapter(
  metrics: BrokerMetrics,
  onHealth: (world: string, health: WorldHealth) => void = () => {},
): WorldGatewayMetrics {
  return {
    requestFinished: (world, verb, _status, ms) => metrics.recordWorldRequest(world, verb, ms / 1000, true),
    requestFailed: (world, verb, _code, _reason, ms) => metrics.recordWorldRequest(world, verb, ms / 1000, false),
    requestRejected: (world, verb) => metrics.recordWorldRejection(world, verb),
    healthChanged: onHealth,
  };
}
