/**
 * One world's line: its own pooled QUIC client (own connections, own stream
 * gates), a time budget per call that the transport keeps (src/transport/client.ts)
 * and a circuit breaker, so a dead or slow world costs only its own callers. Transport failures are translated here, once,
 * into WorldGatewayErrors; world statuses pass through as answers.
 */
import { Deadline } from '../../concurrency/deadline.ts';
import { ResponseParseError, type MarkResponse } from '../../protocol/response.ts';
import { isWriteVerb, type Verb } from '../../protocol/verbs.ts';
import { type DialFailedError, MarkTransportError } from '../../transport/errors.ts';
import type { WatchBlock } from '../../protocol/watch.ts';
import { MarkClient, type MarkCall } from '../../transport/mark-client.ts';
import type { MarkAuthority } from '../../transport/authority.ts';
import { parseHostPort } from '../config/index.ts';
import { CircuitBreaker, type CircuitState, type CircuitTicket } from './circuit-breaker.ts';
import { FairGate } from './fair-gate.ts';
import { WorldGatewayError, WorldUnavailableError } from './gateway.ts';
import type { WorldGatewayMetrics } from './metrics.ts';
import type { WorldDefinition } from './world-definition.ts';
import { HealthRecord, type WorldHealth } from './world-health.ts';

export type WorldDialerSettings = {
  /** PEM CA bundle for world certificates; absent means the system store. */
  ca?: string;
  insecureSkipVerify: boolean;
  dialTimeoutMs: number;
  /** Budget of one call, read retries included: the transport owns it (src/transport/client.ts `budgetMs`). */
  requestTimeoutMs: number;
  /** One attempt of a read; shorter than `requestTimeoutMs`, so a read that stalls once is retried in time. A write, sent once, has the whole budget. */
  attemptTimeoutMs: number;
  failureThreshold: number;
  cooldownMs: number;
  /** Streams to the world at once (the pooled client's per-connection limit); default 8. */
  maxConcurrentStreams?: number;
  /** Of those, the most one caller (subject) may hold; default 4. Its further calls queue behind its own. */
  maxInFlightPerCaller?: number;
};

export const defaultMaxConcurrentStreams = 8;
export const defaultMaxInFlightPerCaller = 4;
/**
 * Calls the broker makes on nobody's behalf (graph seeding and refreshes, the
 * federation crawl) share one caller's share; a caller's mark_graph crawl is
 * charged to that caller.
 */
export const brokerCaller = 'broker:internal';

type Outcome = { kind: 'failure' | 'neutral' | 'answered'; error: Error };

export class WorldConnection {
  readonly world: WorldDefinition;
  readonly #client: MarkClient;
  readonly #authority: MarkAuthority;
  readonly #breaker: CircuitBreaker;
  readonly #gate: FairGate;
  readonly #settings: WorldDialerSettings;
  readonly #metrics: WorldGatewayMetrics;
  readonly #health: HealthRecord;
  #probeTimer: NodeJS.Timeout | undefined;
  #closed = false;
  #watchClient: MarkClient | undefined;

  constructor(
    world: WorldDefinition,
    settings: WorldDialerSettings,
    deps: { metrics: WorldGatewayMetrics; now: () => number },
  ) {
    this.world = world;
    this.#settings = settings;
    this.#metrics = deps.metrics;
    this.#authority = authorityOf(world);
    this.#client = new MarkClient({
      ...(settings.ca === undefined ? {} : { ca: settings.ca }),
      insecureSkipVerify: settings.insecureSkipVerify,
      dialTimeoutMs: settings.dialTimeoutMs,
      requestTimeoutMs: settings.attemptTimeoutMs,
      budgetMs: settings.requestTimeoutMs,
      maxConcurrentStreams: settings.maxConcurrentStreams ?? defaultMaxConcurrentStreams,
      // A world that gives no handshake within dialTimeout is reported down at once (see #scheduleProbe).
      retryDialTimeouts: false,
    });
    this.#gate = new FairGate({
      capacity: settings.maxConcurrentStreams ?? defaultMaxConcurrentStreams,
      perCaller: settings.maxInFlightPerCaller ?? defaultMaxInFlightPerCaller,
    });
    this.#breaker = new CircuitBreaker({
      failureThreshold: settings.failureThreshold,
      cooldownMs: settings.cooldownMs,
      now: deps.now,
      onStateChange: (state) => {
        if (state === 'open') this.#scheduleProbe();
      },
    });
    this.#health = new HealthRecord((health) => deps.metrics.healthChanged(world.name, health));
  }

  /** QUIC connections open to the world: the callers' pooled one and the WATCH one. */
  get openConnections(): number {
    return this.#client.openConnections + (this.#watchClient?.openConnections ?? 0);
  }

  get circuitState(): CircuitState {
    return this.#breaker.state;
  }

  get health(): WorldHealth {
    return this.#health.health;
  }

  /**
   * One call on behalf of `caller`. It first waits for a fair slot (bounded by
   * the request timeout and the caller's signal); running out of time there is
   * the broker's own queueing, answered as `busy` and never held against the
   * world's circuit. Only then does the world's own deadline start.
   */
  async send(call: MarkCall, caller: string = brokerCaller): Promise<MarkResponse> {
    if (this.#breaker.state === 'open' && this.#breaker.retryAfterMs() > 0) throw this.#failFast(call.verb);
    const release = await this.#admitFairly(call, caller);
    try {
      return await this.#sendAdmitted(call);
    } finally {
      release();
    }
  }

  async #admitFairly(call: MarkCall, caller: string): Promise<() => void> {
    // The common case, a free slot: no timer and no combined signal for a wait that does not happen.
    const free = call.signal?.aborted === true ? undefined : this.#gate.tryAcquire(caller);
    if (free !== undefined) return free;
    const wait = new Deadline(this.#settings.requestTimeoutMs, call.signal);
    try {
      return await this.#gate.acquire(caller, wait.signal);
    } catch (error) {
      if (call.signal?.aborted === true) throw error;
      const held = this.#gate.heldBy(caller);
      this.#metrics.requestRejected(this.world.name, call.verb, 'busy');
      throw new WorldUnavailableError(
        this.world.name,
        'busy',
        `your calls to world ${JSON.stringify(this.world.name)} are queued behind ${held} of your own still in flight; send fewer at once`,
        { cause: error },
      );
    } finally {
      wait.end();
    }
  }

  async #sendAdmitted(call: MarkCall): Promise<MarkResponse> {
    const ticket = this.#breaker.admit();
    if (ticket === null) throw this.#failFast(call.verb);
    const started = performance.now();
    try {
      const response = await this.#client.call(this.#authority, call);
      this.#breaker.recordSuccess(ticket);
      this.#health.answered(this.#breaker.state);
      this.#metrics.requestFinished(this.world.name, call.verb, response.status, performance.now() - started);
      return response;
    } catch (error) {
      throw this.#settle(ticket, call, error, performance.now() - started);
    }
  }

  /**
   * The world's WATCH stream (Mark SPEC §6.8), tokenless like every broker
   * read, on a connection of its own: a watch holds its stream for hours and
   * must not take one of the slots the fair gate hands to callers. Every block
   * it receives is an answer from the world, so it counts for the world's
   * health as a call's answer does (/readyz and mark_worlds then show a
   * watched world as up before anyone has called it).
   */
  watch(watch: { path: string; since?: string }, signal: AbortSignal): AsyncGenerator<WatchBlock> {
    this.#watchClient ??= new MarkClient({
      ...(this.#settings.ca === undefined ? {} : { ca: this.#settings.ca }),
      insecureSkipVerify: this.#settings.insecureSkipVerify,
      dialTimeoutMs: this.#settings.dialTimeoutMs,
      requestTimeoutMs: this.#settings.attemptTimeoutMs,
      maxConcurrentStreams: 1,
    });
    return this.#countAnswers(this.#watchClient.watch(this.#authority, watch, signal));
  }

  async *#countAnswers(blocks: AsyncGenerator<WatchBlock>): AsyncGenerator<WatchBlock> {
    for await (const block of blocks) {
      this.#health.answered(this.#breaker.state);
      yield block;
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    clearTimeout(this.#probeTimer);
    await Promise.all([this.#client.close(), this.#watchClient?.close()]);
  }

  /**
   * While the circuit is open the broker itself probes the world once per
   * cool-down (a tokenless FETCH of /health, which the world answers without reading its store; any answer closes the circuit),
   * so no caller's request is spent finding out whether the world is back.
   * A caller that comes after the cool-down and before the probe still probes,
   * as the breaker lets the first call through.
   */
  #scheduleProbe(): void {
    clearTimeout(this.#probeTimer);
    if (this.#closed) return;
    this.#probeTimer = setTimeout(() => {
      this.#probeTimer = undefined;
      if (this.#closed || this.#breaker.state !== 'open') return;
      if (this.#breaker.retryAfterMs() > 0) return this.#scheduleProbe();
      this.#sendAdmitted({ verb: 'FETCH', path: '/health' }).catch(() => {});
    }, this.#settings.cooldownMs + 1);
    this.#probeTimer.unref();
  }

  #failFast(verb: Verb): WorldUnavailableError {
    const retryAfterMs = this.#breaker.retryAfterMs();
    this.#metrics.requestRejected(this.world.name, verb, 'circuit-open');
    const { since, lastError } = this.#health.health;
    const why = lastError === undefined ? 'repeated transport failures' : lastError;
    const message = `world ${JSON.stringify(this.world.name)} is down${since === undefined ? '' : ` since ${since}`} (${why}); failing fast, the broker tries it again in ${Math.max(1, Math.ceil(retryAfterMs / 1000))} s. Other worlds still answer (mark_worlds shows each world's health).`;
    return new WorldUnavailableError(this.world.name, 'circuit-open', message, { retryAfterMs });
  }

  #settle(ticket: CircuitTicket, call: MarkCall, error: unknown, durationMs: number): Error {
    const outcome = this.#classify(call, error);
    if (outcome.kind === 'failure') {
      this.#breaker.recordFailure(ticket, isConclusive(error));
      this.#health.failed(publicReason(outcome.error), this.#breaker.state);
    } else if (outcome.kind === 'answered') {
      this.#breaker.recordSuccess(ticket);
      this.#health.answered(this.#breaker.state);
    } else this.#breaker.recordNeutral(ticket);
    if (outcome.error instanceof WorldGatewayError) {
      const reason = outcome.error instanceof WorldUnavailableError ? outcome.error.reason : 'outcome-unknown';
      this.#metrics.requestFailed(this.world.name, call.verb, outcome.error.code, reason, durationMs);
    }
    return outcome.error;
  }

  /** Style rule 7: translate at the layer boundary, keep the cause, never leak library text. */
  #classify(call: MarkCall, error: unknown): Outcome {
    const name = this.world.name;
    const quoted = JSON.stringify(name);
    if (error instanceof ResponseParseError) {
      // The world answered, but not in Mark: for a write we cannot tell what it did.
      if (isWriteVerb(call.verb)) return { kind: 'failure', error: outcomeUnknown(name, error) };
      return {
        kind: 'failure',
        error: new WorldUnavailableError(name, 'invalid-response', `world ${quoted} sent an invalid response`, {
          cause: error,
        }),
      };
    }
    if (!(error instanceof MarkTransportError)) return { kind: 'neutral', error: error as Error };
    switch (error.code) {
      case 'ERR_OUTCOME_UNKNOWN':
        return { kind: 'failure', error: outcomeUnknown(name, error) };
      case 'ERR_ABORTED':
        // The caller's own signal: theirs to handle, not the world's fault.
        return { kind: 'neutral', error };
      case 'ERR_TIMEOUT':
        return {
          kind: 'failure',
          error: new WorldUnavailableError(
            name,
            'timeout',
            `world ${quoted} did not answer within ${this.#settings.requestTimeoutMs} ms`,
            { cause: error },
          ),
        };
      case 'ERR_RESPONSE_TOO_LARGE':
        return {
          kind: 'answered',
          error: new WorldUnavailableError(
            name,
            'invalid-response',
            `world ${quoted} sent a response larger than the broker accepts`,
            { cause: error },
          ),
        };
      case 'ERR_CLIENT_CLOSED':
        return {
          kind: 'neutral',
          error: new WorldUnavailableError(name, 'closed', `world ${quoted} is no longer routed by this broker`, {
            cause: error,
          }),
        };
      default:
        return {
          kind: 'failure',
          // The transport's message names the dial address: it stays on `cause`, for logs only.
          error: new WorldUnavailableError(
            name,
            'transport',
            `world ${quoted} is unavailable: ${transportFailure(error, this.#settings.dialTimeoutMs)}`,
            {
              cause: error,
            },
          ),
        };
    }
  }
}

/** The world would not accept a connection at all: no answer to the handshake, or a refusal of it. */
function isConclusive(error: unknown): boolean {
  return (
    error instanceof MarkTransportError && (error.code === 'ERR_DIAL_FAILED' || error.code === 'ERR_TLS_HANDSHAKE')
  );
}

/** The failure as health shows it: the public message without the leading `world "x"`. */
function publicReason(error: Error): string {
  return error.message.replace(/^world "[^"]*"(?: is unavailable)?:? ?/, '');
}

/** A public phrase for a transport failure: what went wrong, never where (addresses, server names). */
function transportFailure(error: MarkTransportError, dialTimeoutMs: number): string {
  switch (error.code) {
    case 'ERR_DIAL_FAILED':
      return (error as DialFailedError).timedOut
        ? `it did not accept a connection within ${dialTimeoutMs} ms`
        : 'could not connect';
    case 'ERR_TLS_HANDSHAKE':
      return 'the TLS handshake failed';
    case 'ERR_CONNECTION_LOST':
      return 'the connection was lost before the answer was complete';
    default:
      return 'transport failure';
  }
}

function outcomeUnknown(world: string, cause: unknown): WorldGatewayError {
  // Mark client rule (Go fetch.ErrOutcomeUnknown): reconcile by reading, never resend blindly.
  return new WorldGatewayError(
    'ERR_OUTCOME_UNKNOWN',
    world,
    `world ${JSON.stringify(world)}: request sent but outcome unknown (read the document before retrying)`,
    { cause },
  );
}

/** Dial the address; present and verify `serverName` (quiche checks DNS SANs only, so IP addresses need one). */
function authorityOf(world: WorldDefinition): MarkAuthority {
  const { host, port } = parseHostPort(world.address);
  const dialHost = host ?? '';
  if (world.serverName === undefined || world.serverName === dialHost) return { host: dialHost, port };
  return { host: world.serverName, port, dialHost };
}
