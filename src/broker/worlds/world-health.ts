/**
 * What the broker knows of one world's health, from the calls it made, the
 * probes it sent and its change stream's blocks: `unknown` until the first answer or failure, `up` while the
 * last call was answered (any status), `degraded` after a failure that has not
 * opened the circuit yet, `down` while the circuit is open (calls fail fast and
 * the broker probes the world in the background). Shown by mark_worlds and
 * /readyz, logged when it changes.
 */
import type { CircuitState } from './circuit-breaker.ts';

export type WorldHealthState = 'unknown' | 'up' | 'degraded' | 'down';

export type WorldHealth = {
  state: WorldHealthState;
  /** When the world entered this state (RFC 3339); absent while unknown. */
  since?: string;
  /** The last failure, in words an agent may read (never a dial address). */
  lastError?: string;
  /** When that failure happened (RFC 3339). */
  lastErrorAt?: string;
};

/** The health of a world that has not been called yet. */
export const unknownHealth: WorldHealth = { state: 'unknown' };

export class HealthRecord {
  #state: WorldHealthState = 'unknown';
  #since: string | undefined;
  #lastError: string | undefined;
  #lastErrorAt: string | undefined;
  readonly #onChange: (health: WorldHealth) => void;
  readonly #wallClock: () => Date;

  constructor(onChange: (health: WorldHealth) => void = () => {}, wallClock: () => Date = () => new Date()) {
    this.#onChange = onChange;
    this.#wallClock = wallClock;
  }

  get health(): WorldHealth {
    return {
      state: this.#state,
      ...(this.#since === undefined ? {} : { since: this.#since }),
      ...(this.#lastError === undefined ? {} : { lastError: this.#lastError }),
      ...(this.#lastErrorAt === undefined ? {} : { lastErrorAt: this.#lastErrorAt }),
    };
  }

  /** The world answered; `circuit` is the breaker's state after it. */
  answered(circuit: CircuitState): void {
    this.#move(circuit === 'closed' ? 'up' : 'down');
  }

  /** A call failed for the world's sake (not the caller's); `circuit` is the breaker's state after it. */
  failed(message: string, circuit: CircuitState): void {
    this.#lastError = message;
    this.#lastErrorAt = this.#wallClock().toISOString();
    this.#move(circuit === 'closed' ? 'degraded' : 'down', true);
  }

  #move(state: WorldHealthState, failure = false): void {
    if (state === this.#state) return;
    this.#state = state;
    this.#since = failure && this.#lastErrorAt !== undefined ? this.#lastErrorAt : this.#wallClock().toISOString();
    this.#onChange(this.health);
  }
}

/** One line per world for /readyz and logs: `team-b: down since … (could not connect)`. */
export function healthLine(world: string, health: WorldHealth): string {
  if (health.state === 'unknown') return `${world}: unknown (not called yet)`;
  const since = health.since === undefined ? '' : ` since ${health.since}`;
  const why = health.state === 'up' || health.lastError === undefined ? '' : ` (${health.lastError})`;
  return `${world}: ${health.state}${since}${why}`;
}
