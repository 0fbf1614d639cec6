/**
 * What the gateway reports about each world, for the metrics layer to wire to
 * prom-client (this module does not import it). Callbacks must be cheap and
 * must not throw; they run on the request path.
 */
import type { Verb } from '../../protocol/verbs.ts';
import type { WorldHealth } from './world-health.ts';

/** Why a call was refused before it left the broker (WorldUnavailableError reasons that send nothing). */
export type RejectionReason = 'busy' | 'circuit-open';

export interface WorldGatewayMetrics {
  /** The world answered, with any status (world statuses are answers, not failures). */
  requestFinished(world: string, verb: Verb, status: string, durationMs: number): void;
  /**
   * The call was sent and failed without an answer (timed out, failed on the
   * wire): `code` is the WorldGatewayError code (ERR_WORLD_UNAVAILABLE,
   * ERR_OUTCOME_UNKNOWN), `reason` the finer cause.
   */
  requestFailed(world: string, verb: Verb, code: string, reason: string, durationMs: number): void;
  /**
   * The broker refused the call before sending it: the world's circuit is open
   * (`circuit-open`) or the caller got no free slot in time (`busy`). No
   * duration: nothing reached the world, so there is no latency to report.
   */
  requestRejected(world: string, verb: Verb, reason: RejectionReason): void;
  /** A world's health moved (src/broker/worlds/world-health.ts); the broker logs it. */
  healthChanged(world: string, health: WorldHealth): void;
}

export const noopWorldGatewayMetrics: WorldGatewayMetrics = {
  requestFinished() {},
  requestFailed() {},
  requestRejected() {},
  healthChanged() {},
};
