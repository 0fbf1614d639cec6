import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { signInFailureKinds, type SignInFailureKind } from '../auth/authorize/sign-in-failure.ts';
import type { ToolOutcome } from '../mcp/run-tool.ts';

export type { ToolOutcome };

/** What the world gateway reports; structural, so `src/broker/worlds` can declare its own copy. */
export interface WorldMetrics {
  /** A request sent to the world: counted by result, its latency observed. */
  recordWorldRequest(world: string, verb: string, seconds: number, ok: boolean): void;
  /** A call refused before it was sent (open circuit, no free slot): counted as a failure, no latency observed. */
  recordWorldRejection(world: string, verb: string): void;
}

export type CircuitState = 'closed' | 'open' | 'half-open';

/** One routed world as the gateway holds it now: its circuit and its open QUIC connections. */
export type WorldState = { readonly world: string; readonly circuit: CircuitState; readonly connections: number };

/** Every routed world's state, read when Prometheus scrapes (MarkWorldGateway.worldStates). */
export type WorldStates = () => Iterable<WorldState>;

/** Every broker metric on one registry, plus the small recorders the other modules call. */
export interface BrokerMetrics extends WorldMetrics {
  readonly registry: Registry;
  recordToolCall(tool: string, seconds: number, outcome: ToolOutcome): void;
  recordRateLimitRejection(limiter: 'subject' | 'ip', route: string): void;
  /** A sign-in that came back from the IdP without an identity the broker accepts. */
  recordSignInFailure(kind: SignInFailureKind): void;
  /** A shared budget (`subject`, `login`, ...) answered by this pod's own buckets because Redis did not answer. */
  setRateLimitFallback(limiter: string, active: boolean): void;
  recordHttpRequest(listener: string, method: string, route: string, status: number, seconds: number): void;
  setSessionCount(count: number): void;
  /** Services discovery ignores because another Service already serves their world name. */
  setDiscoveryConflicts(count: number): void;
  /** Services discovery refuses because `discovery.maxWorlds` worlds are already served. */
  setDiscoveryRefused(count: number): void;
  /** A check of a world document (world.md, the hub's standard) got no answer (src/broker/knowledge). */
  recordKnowledgeCheckFailure(world: string, path: string): void;
  /** Graph read checks of one answer not sent because the world's read-check budget was spent (src/broker/graph/read-check.ts). */
  recordGraphReadChecksRefused(world: string, checks: number): void;
  /** Where `world_circuit_state` and `world_connections` read their samples at each scrape; until set, they have none. */
  observeWorlds(states: WorldStates): void;
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
  // Both world gauges are read from the gateway at scrape time: the request path does no bookkeeping, a
  // removed world leaves no series and a moved one (a fresh connection, closed circuit) shows what the gateway says.
  let worldStates: WorldStates = () => [];
  new Gauge({
    name: `${prefix}world_circuit_state`,
    help: 'Circuit state per routed world: 1 for the current state, 0 otherwise',
    labelNames: ['world', 'state'] as const,
    registers,
    collect() {
      this.reset();
      for (const { world, circuit } of worldStates())
        for (const state of circuitStates) this.set({ world, state }, state === circuit ? 1 : 0);
    },
  });
  new Gauge({
    name: `${prefix}world_connections`,
    help: 'Open QUIC connections per routed world: the pooled one for calls and the WATCH one',
    labelNames: ['world'] as const,
    registers,
    collect() {
      this.reset();
      for (const { world, connections } of worldStates()) this.set({ world }, connections);
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
  const signInFailures = new Counter({
    name: `${prefix}signin_failures_total`,
    help: 'Sign-ins that came back from the IdP without an accepted identity, by kind (denied, failed, refused)',
    labelNames: ['kind'] as const,
    registers,
  });
  // Every kind from the start at 0, so an alert on rate() sees the first failure.
  for (const kind of signInFailureKinds) signInFailures.inc({ kind }, 0);
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
  const knowledgeCheckFailures = new Counter({
    name: `${prefix}knowledge_check_failures_total`,
    help: 'Checks of a world document (world.md, the publishing standard) that got no answer',
    labelNames: ['world', 'path'] as const,
    registers,
  });
  const graphReadChecksRefused = new Counter({
    name: `${prefix}graph_read_checks_refused_total`,
    help: "Graph read checks not sent because the world's read-check budget on this pod was spent; each withholds one document from one answer",
    labelNames: ['world'] as const,
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
    recordWorldRejection(world, verb) {
      // Observing 0 s here would make a dead world's latency look best during its outage.
      worldRequests.inc({ world, verb, result: 'failure' });
    },
    recordRateLimitRejection(limiter, route) {
      rejections.inc({ limiter, route });
    },
    recordSignInFailure(kind) {
      signInFailures.inc({ kind });
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
    recordKnowledgeCheckFailure(world, path) {
      knowledgeCheckFailures.inc({ world, path });
    },
    recordGraphReadChecksRefused(world, checks) {
      graphReadChecksRefused.inc({ world }, checks);
    },
    observeWorlds(states) {
      worldStates = states;
    },
  };
}
