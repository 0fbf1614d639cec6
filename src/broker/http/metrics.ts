import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ToolOutcome } from '../mcp/run-tool.ts';

export type { ToolOutcome };

/** What the world gateway reports; structural, so `src/broker/worlds` can declare its own copy. */
export interface WorldMetrics {
  recordWorldRequest(world: string, verb: string, seconds: number, ok: boolean): void;
  setCircuitState(world: string, state: CircuitState): void;
}

/** Open QUIC connections per world, read when Prometheus scrapes (MarkWorldGateway.openConnections). */
export type WorldConnectionCounts = () => Iterable<readonly [world: string, open: number]>;

export type CircuitState = 'closed' | 'open' | 'half-open';

/** Every broker metric on one registry, plus the small recorders the other modules call. */
export interface BrokerMetrics extends WorldMetrics {
  readonly registry: Registry;
  recordToolCall(tool: string, seconds: number, outcome: ToolOutcome): void;
  recordRateLimitRejection(limiter: 'subject' | 'ip', route: string): void;
  /** A shared budget (`subject`, `login`, ...) answered by this pod's own buckets because Redis did not answer. */
  setRateLimitFallback(limiter: string, active: boolean): void;
  recordHttpRequest(listener: string, method: string, route: string, status: number, seconds: number): void;
  setSessionCount(count: number): void;
  /** Services discovery ignores because another Service already serves their world name. */
  setDiscoveryConflicts(count: number): void;
  /** Services discovery refuses because `discovery.maxWorlds` worlds are already served. */
  setDiscoveryRefused(count: number): void;
  /** Where `world_connections` reads its samples at each scrape; until set, it has none. */
  observeWorldConnections(counts: WorldConnectionCounts): void;
}

const circuitStates: readonly CircuitState[] = ['closed', 'open', 'half-open'];
const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export type BrokerMetricsOptions = { prefix?: string; collectDefaults?: boolean };

export function createBrokerMetrics(options: BrokerMetricsOptions = {}): BrokerMetrics {
  const prefix = options.prefix ?? 'broker_';
  const registry = new Registry();
  if (options.collectDefaults ?? true) collectDefaultMetrics({ register: registry, prefix });
  const registers = [registry];
  const toolCalls = new Counter({
    name: `${prefix}tool_calls_total`,
    help: 'MCP tool calls by tool and outcome',
    labelNames: ['tool', 'outcome'] as const,
    registers,
  });
  const toolSeconds = new Histogram({
    name: `${prefix}tool_call_duration_seconds`,
    help: 'MCP tool call latency',
    labelNames: ['tool'] as const,
    buckets: latencyBuckets,
    registers,
  });
  const worldRequests = new Counter({
    name: `${prefix}world_requests_total`,
    help: 'Mark Protocol requests to worlds by result',
    labelNames: ['world', 'verb', 'result'] as const,
    registers,
  });
  const worldSeconds = new Histogram({
    name: `${prefix}world_request_duration_seconds`,
    help: 'QUIC request latency to worlds',
    labelNames: ['world', 'verb'] as const,
    buckets: latencyBuckets,
    registers,
  });
  const circuit = new Gauge({
    name: `${prefix}world_circuit_state`,
    help: 'Circuit state per world: 1 for the current state, 0 otherwise',
    labelNames: ['world', 'state'] as const,
    registers,
  });
  let connectionCounts: WorldConnectionCounts = () => [];
  new Gauge({
    name: `${prefix}world_connections`,
    help: 'Open QUIC connections per world: the pooled one for calls and the WATCH one',
    labelNames: ['world'] as const,
    registers,
    // Read at scrape time, so the request path does no bookkeeping and a removed world leaves no stale series.
    collect() {
      this.reset();
      for (const [world, open] of connectionCounts()) this.set({ world }, open);
    },
  });
  const rejections = new Counter({
    name: `${prefix}rate_limit_rejections_total`,
    help: 'Requests refused by a rate limiter',
    labelNames: ['limiter', 'route'] as const,
    registers,
  });
  const fallback = new Gauge({
    name: `${prefix}rate_limit_local_fallback`,
    help: 'Shared rate limits answered by per-pod buckets because Redis is unreachable: 1 while so, per budget',
    labelNames: ['limiter'] as const,
    registers,
  });
  const httpSeconds = new Histogram({
    name: `${prefix}http_request_duration_seconds`,
    help: 'HTTP requests by listener, route and status',
    labelNames: ['listener', 'method', 'route', 'status'] as const,
    buckets: latencyBuckets,
    registers,
  });
  const sessions = new Gauge({ name: `${prefix}mcp_sessions`, help: 'Open stateful MCP sessions', registers });
  const discoveryConflicts = new Gauge({
    name: `${prefix}discovery_name_conflicts`,
    help: 'Services labelled demarkus.io/world that discovery ignores because another Service serves that world name',
    registers,
  });
  const discoveryRefused = new Gauge({
    name: `${prefix}discovery_worlds_refused`,
    help: 'Services labelled demarkus.io/world that discovery refuses because discovery.maxWorlds worlds are already served',
    registers,
  });

  return {
    registry,
    recordToolCall(tool, seconds, outcome) {
      toolCalls.inc({ tool, outcome });
      toolSeconds.observe({ tool }, seconds);
    },
    recordWorldRequest(world, verb, seconds, ok) {
      worldRequests.inc({ world, verb, result: ok ? 'ok' : 'failure' });
      worldSeconds.observe({ world, verb }, seconds);
    },
    setCircuitState(world, state) {
      for (const s of circuitStates) circuit.set({ world, state: s }, s === state ? 1 : 0);
    },
    recordRateLimitRejection(limiter, route) {
      rejections.inc({ limiter, route });
    },
    setRateLimitFallback(limiter, active) {
      fallback.set({ limiter }, active ? 1 : 0);
    },
    recordHttpRequest(listener, method, route, status, seconds) {
      httpSeconds.observe({ listener, method, route, status: String(status) }, seconds);
    },
    setSessionCount(count) {
      sessions.set(count);
    },
    setDiscoveryConflicts(count) {
      discoveryConflicts.set(count);
    },
    setDiscoveryRefused(count) {
      discoveryRefused.set(count);
    },
    observeWorldConnections(counts) {
      connectionCounts = counts;
    },
  };
}

/** For callers without a registry (tests, tools run outside the broker). */
export const noopWorldMetrics: WorldMetrics = {
  recordWorldRequest() {},
  setCircuitState() {},
};
