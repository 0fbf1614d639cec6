/**
 * What the gateway reports about each world, for the metrics layer to wire to
 * prom-client (this module does not import it). Callbacks must be cheap and
 * must not throw; they run on the request path.
 */
import type { Verb } from '../../protocol/verbs.ts';
import type { WorldHealth } from './world-health.ts';

export interface WorldGatewayMetrics {
  /** The world answered, with any status (world statuses are answers, not failures). */
  requestFinished(world: string, verb: Verb, status: string, durationMs: number): void;
  /**
   * The call failed without an answer: `code` is the WorldGatewayError code
   * (ERR_WORLD_UNAVAILABLE, ERR_OUTCOME_UNKNOWN), `reason` the finer cause
   * (`circuit-open` for a fail-fast rejection that sent nothing).
   */
  requestFailed(world: string, verb: Verb, code: string, reason: string, durationMs: number): void;
  /** A world's health moved (src/broker/worlds/world-health.ts); the broker logs it. */
  healthChanged(world: string, health: WorldHealth): void;
}

export const noopWorldGatewayMetrics: WorldGatewayMetrics = {
  requestFinished() {},
  requestFailed() {},
  healthChanged() {},
};
