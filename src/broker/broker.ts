import { setTimeout as delay } from 'node:timers/promises';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { BrokerConfig } from './config/index.ts';
import { parseListenAddress } from './config/index.ts';
import {
  healthLine,
  openWorldGateway,
  unknownHealth,
  type MarkWorldGateway,
  type WorldHealth,
} from './worlds/index.ts';
import { createBearerVerifier } from './auth/verify-bearer.ts';
import { KeyedLimit } from '../concurrency/keyed-limit.ts';
import { createManagementApp } from './http/management.ts';
import { createIssuerApp } from './http/issuer-listener.ts';
import { closeWithin } from './http/close-within.ts';
import { createMcpListener, type McpListener } from './http/mcp-listener.ts';
import { createBrokerMetrics, type BrokerMetrics } from './http/metrics.ts';
import { brokerDefinitions } from './definitions.ts';
import { tokenTrust, verifierOptions, type TokenTrust } from './trust.ts';
import { worldMetricsAdapter } from './world-metrics-adapter.ts';
import { setUpBrokerSignIn, withKeyRing, type BrokerSignInOptions } from './http/signin/broker-sign-in.ts';
import type { SignInContext } from './auth/sign-in-context.ts';
import { BrokerGraph } from './graph/index.ts';
import { checkFailureReport, createKnowledge } from './knowledge/index.ts';
import { SearchStatsMemory } from './search/index.ts';
import { followChanges } from './changes/follow-changes.ts';
import { ResourceSubscriptions } from './changes/resource-subscriptions.ts';
import { WorldWatcher } from './changes/world-watcher.ts';
import { clusterServices, startDiscovery, startLeaderSweep, sweepsByLease } from './cluster.ts';
import { openRedisChannel, openSharedState } from './state/index.ts';
import { sharedLimiters } from './http/rate-limit/shared-token-buckets.ts';

export type BrokerOptions = {
  logger?: FastifyServerOptions['logger'];
  version?: string;
  now?: () => Date;
  /** Sign-in state and the upstream IdP, when not the defaults (tests, the Kubernetes Secret backend). */
  signIn?: Omit<BrokerSignInOptions, 'metrics'>;
};

export type RunningBroker = {
  /** Sign-in, OAuth and discovery documents (`server.addr`): the public issuer host. */
  issuer: { host: string; port: number; app: FastifyInstance };
  /** `/healthz`, `/readyz`, `/metrics` (`server.management.addr`): in-cluster only. */
  management: { host: string; port: number; app: FastifyInstance };
  mcp: { host: string; port: number; listener: McpListener };
  gateway: MarkWorldGateway;
  graph: BrokerGraph;
  /** Each world's WATCH stream, feeding the graph, cached documents and resource subscriptions. */
  watcher: WorldWatcher;
  metrics: BrokerMetrics;
  trust: TokenTrust;
  /** The authorization server, when `oidc.issuer` is configured. */
  signIn: SignInContext | null;
  /**
   * Stops the broker: `/readyz` answers 503 at once, the listeners keep serving for
   * `drainDelayMs`, then the MCP and issuer listeners stop accepting and give what is in flight
   * up to `graceMs` before closing the rest; the management listener and the rest close last.
   * Both default to 0 (tests); `npm start` passes no drain and a 1 s bound (dev-command.ts),
   * `demarkus-broker broker` passes `server.shutdown`.
   */
  close(options?: ShutdownOptions): Promise<void>;
};

export type ShutdownOptions = { drainDelayMs?: number; graceMs?: number };

const serverInstructions = [
  'This server is a knowledge system made of worlds (one per team). Address documents as mark://{world}/{path},',
  'where {world} is a world name from mark_worlds; the broker routes each call to that world.',
  'Start with mark_worlds to see the worlds, mark_lookup or mark_lookup_all to find documents by tag or title,',
  'then mark_explore for a document card and mark_fetch (with #anchor for one section) to read.',
  'Write with mark_publish (expected_version from the last fetch) or mark_append.',
].join(' ');

/**
 * The broker process: the world gateway, then the MCP, issuer and management
 * listeners. Start-up fails fast with a clear reason (bad signing
 * key, IdP discovery, a listener that cannot bind); once running, `/readyz`
 * answers ready while its listeners are up, whatever the worlds do.
 */
export async function startBroker(config: BrokerConfig, options: BrokerOptions = {}): Promise<RunningBroker> {
  const trust = tokenTrust(config);
  // With `metrics.enabled: false` nothing is served, so the process metrics are not sampled either;
  // the broker's own recorders still run (cheap counters) so no module needs to know.
  const metrics = createBrokerMetrics({ collectDefaults: config.metrics.enabled });
  const cluster = clusterServices(config);
  const leaderSweeps = sweepsByLease(config, cluster);
  const shared = await openSharedState(config, logWarning('redis connection failed'));
  const logFallback = logWarning('shared rate limit unavailable: this pod counts on its own until Redis answers');
  const rateLimiters =
    shared.redis === null
      ? undefined
      : sharedLimiters({
          client: shared.redis,
          keyPrefix: shared.keyPrefix,
          onFallback: (limiter, active) => {
            metrics.setRateLimitFallback(limiter, active);
            if (active) logFallback(limiter);
          },
        });
  const signIn = await setUpBrokerSignIn(config, trust.resource, {
    ...(cluster.state ? { stateStore: cluster.state } : {}),
    ephemeralStore: shared.ephemeral,
    ...(rateLimiters ? { rateLimiters } : {}),
    externalRefreshSweep: leaderSweeps,
    ...options.signIn,
    metrics,
  }).catch(async (error) => {
    await shared.close();
    throw error;
  });
  const verifyBearer = createBearerVerifier(
    withKeyRing(await verifierOptions(config, trust), signIn.ring, config.oidc.allowDomains),
  );
  // The listener's logger exists only once the listener does; world health changes wait for it.
  let logWorldHealth: (world: string, health: WorldHealth) => void = () => {};
  const gateway = await openWorldGateway(config, {
    metrics: worldMetricsAdapter(metrics, (world, health) => logWorldHealth(world, health)),
    ...(cluster.writeTokens ? { writeTokens: cluster.writeTokens } : {}),
  });
  metrics.observeWorlds(() => gateway.worldStates());
  // The listener's logger exists only once the listener does: warnings of the graph, the knowledge
  // layer and the watcher go through this and reach it from then on.
  let warnLater: (fields: Record<string, unknown>, message: string) => void = () => {};
  const warn = { warn: (fields: Record<string, unknown>, message: string) => warnLater(fields, message) };
  // Replicas tell each other when a world's /graph.md changed, so each re-seeds at its next use.
  const graphChannel =
    shared.redis === null
      ? null
      : openRedisChannel(
          shared.redis,
          `${shared.keyPrefix}graph:published`,
          (world) => graph.heardPublished(world),
          logWarning('graph re-seed signal failed'),
        );
  // One hub for everything that reads it: the graph's seed, the publishing standard and its resources.
  const graph = new BrokerGraph({
    gateway,
    hub: config.hub,
    ...(options.now ? { now: options.now } : {}),
    ...(graphChannel ? { announce: (world: string) => graphChannel.publish(world) } : {}),
    log: warn,
    readCheck: { refused: (world, checks) => metrics.recordGraphReadChecksRefused(world, checks) },
  });
  const knowledge = createKnowledge({
    gateway,
    hub: config.hub,
    log: warn,
    onCheckFailed: checkFailureReport({
      log: warn,
      count: (world, path) => metrics.recordKnowledgeCheckFailure(world, path),
    }),
  });
  const subscriptions = new ResourceSubscriptions();
  const watcher = new WorldWatcher({
    source: gateway,
    log: warn,
  });
  let listening = false;
  let draining = false;
  // The listeners that serve clients: closed together, each within the shutdown bound.
  const servingApps: FastifyInstance[] = [];
  const closers: Array<() => Promise<unknown>> = [
    () => shared.close(),
    () => signIn.close(),
    () => gateway.close(),
    async () => watcher.close(),
    async () => graphChannel?.close(),
  ];
  let closed: Promise<void> | undefined;
  const close = (shutdown: ShutdownOptions = {}) => {
    closed ??= (async () => {
      draining = true;
      if ((shutdown.drainDelayMs ?? 0) > 0) await delay(shutdown.drainDelayMs);
      await Promise.all(servingApps.map((app) => closeWithin(app, shutdown.graceMs ?? 0).catch(() => undefined)));
      listening = false;
      for (const closer of closers.reverse()) await closer().catch(() => undefined);
    })();
    return closed;
  };
  try {
    const stopDiscovery = await startDiscovery(config, cluster, gateway.registry, {
      // A Service discovery ignores (a name conflict names both Services) is something an operator must resolve.
      onIssue: (issue) => logWarning('world discovery ignored a Service')(`${issue.service}: ${issue.problem}`),
      onError: (what, error) => logWarning(`world discovery failed in ${what}`)(error),
      onConflicts: (count) => metrics.setDiscoveryConflicts(count),
      onRefused: (count) => metrics.setDiscoveryRefused(count),
    });
    if (stopDiscovery) closers.push(stopDiscovery);
    const stopFollowing = followChanges(watcher, {
      graph,
      knowledge,
      subscriptions,
      log: warn,
    });
    const watchRegistry = () => watcher.sync(gateway.list().map((world) => world.name));
    const stopWatchingRegistry = gateway.registry.onChange(() => watchRegistry());
    closers.push(async () => {
      stopWatchingRegistry();
      stopFollowing();
    });
    const refreshTokens = signIn.context?.refreshTokens;
    if (leaderSweeps && refreshTokens)
      closers.push(
        startLeaderSweep(
          config,
          cluster,
          async (leadership) => void (await refreshTokens.sweep(leadership)),
          logWarning('refresh token sweep failed'),
          logWarning('leader election failed'),
        ),
      );
    const listener = await createMcpListener({
      publicUrl: config.server.mcp.publicURL ?? config.server.publicURL,
      authorizationServers: [config.server.publicURL],
      verifyBearer,
      server: {
        serverInfo: { name: 'demarkus-broker', version: options.version ?? '0.1.0' },
        instructions: serverInstructions,
        definitions: brokerDefinitions(gateway, { graph: true, knowledge }),
        gateway,
        graph,
        knowledge,
        searchStats: new SearchStatsMemory(),
        subscriptions,
        callsPerSubject: new KeyedLimit({
          inFlight: config.server.mcp.callsPerSubject,
          inFlightShared: config.server.mcp.callsPerSubjectShared,
          waiting: config.server.mcp.queuedCallsPerSubject,
        }),
        ...(options.now ? { now: options.now } : {}),
      },
      ...(config.server.allowedHosts ? { allowedHosts: config.server.allowedHosts } : {}),
      ...(config.server.allowedOrigins ? { allowedOrigins: config.server.allowedOrigins } : {}),
      cors: {
        allowedOrigins: config.server.cors.allowedOrigins,
        allowCredentials: config.server.cors.allowCredentials,
        maxAgeMs: config.server.cors.maxAge,
      },
      rateLimit: {
        disabled: config.rateLimit.disabled,
        subject: config.rateLimit.tokens,
        ip: config.rateLimit.login,
        trustForwardedFor: config.rateLimit.trustForwardedFor,
        ...(rateLimiters ? { limiters: rateLimiters } : {}),
      },
      ...(shared.redis === null ? {} : { sharedSessions: { client: shared.redis, keyPrefix: shared.keyPrefix } }),
      metrics,
      logger: options.logger ?? false,
    });
    servingApps.push(listener.app);
    warnLater = (fields, message) => listener.app.log.warn(fields, message);
    logWorldHealth = (world, health) => {
      const fields = { world, health: health.state, since: health.since, reason: health.lastError };
      if (health.state === 'up') listener.app.log.info(fields, `world ${world} is up`);
      else listener.app.log.warn(fields, `world ${world} is ${health.state}: ${health.lastError ?? 'no answer'}`);
    };
    const issuer = await createIssuerApp({ metrics, plugins: [signIn.plugin], logger: options.logger ?? false });
    servingApps.push(issuer);
    const management = await createManagementApp({
      metrics,
      serveMetrics: config.metrics.enabled,
      // Worlds are not a readiness check: every pod sees the same worlds, so a world outage would take
      // every pod, and the issuer with them, out of the Service (docs/decisions.md). Their health is
      // the detail below, mark_worlds and the broker_world_* series. The signing key needs no check:
      // tokenTrust loaded and checked it before any listener started, and it never changes.
      // From the first SIGTERM on, "not ready: draining" (docs/operations.md).
      ready: () => ({ listeners: listening, serving: draining ? 'draining' : true }),
      detail: () => gateway.list().map((world) => healthLine(world.name, gateway.health(world.name) ?? unknownHealth)),
      logger: options.logger ?? false,
    });
    closers.push(() => management.close());
    const mcpAddress = await listen(listener.app, config.server.mcp.addr);
    const issuerAddress = await listen(issuer, config.server.addr);
    const managementAddress = await listen(management, config.server.management.addr);
    listening = true;
    watchRegistry();
    return {
      issuer: { ...issuerAddress, app: issuer },
      management: { ...managementAddress, app: management },
      mcp: { ...mcpAddress, listener },
      gateway,
      graph,
      watcher,
      metrics,
      trust,
      signIn: signIn.context,
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}

async function listen(app: FastifyInstance, address: string): Promise<{ host: string; port: number }> {
  const { host, port } = parseListenAddress(address);
  await app.listen({ host: host ?? '::', port });
  const bound = app.server.address();
  if (bound === null || typeof bound === 'string') throw new Error(`listener on ${address} has no TCP address`);
  return { host: bound.address, port: bound.port };
}

/** A background failure, as one JSON log line on stderr (no request to log it with). */
function logWarning(msg: string): (error: unknown) => void {
  return (error) => {
    const detail = error instanceof Error ? error.message : String(error);
    process.stderr.write(
      `${JSON.stringify({ time: new Date().toISOString(), level: 'warn', component: 'broker', msg, err: detail })}\n`,
    );
  };
}
