import type { BrokerMetrics } from './http/metrics.ts';
import type { WorldGatewayMetrics } from './worlds/metrics.ts';

/** The gateway reports in its own terms; this maps them onto the Prometheus series. */
export function worldMetricsAdapter(metrics: BrokerMetrics): WorldGatewayMetrics {
  return {
    requestFinished: (world, verb, _status, ms) => metrics.recordWorldRequest(world, verb, ms / 1000, true),
    requestFailed: (world, verb, _code, _reason, ms) => metrics.recordWorldRequest(world, verb, ms / 1000, false),
    circuitStateChanged: (world, state) => metrics.setCircuitState(world, state),
  };
}
