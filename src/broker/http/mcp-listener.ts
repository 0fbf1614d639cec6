import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { Redis } from 'ioredis';
import { createMcpHandler, type AuthInfo } from '@modelcontextprotocol/server';
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { maxBodyBytes } from '../../protocol/limits.ts';
import type { BearerVerifier } from '../auth/verify-bearer.ts';
import { bearerAuthHook } from './bearer-hook.ts';
import { rebindingHook } from './rebinding-hook.ts';
import { DebugRequestLines } from './request-log.ts';
import { mcpErrorHandler, notFoundHandler, plainErrorHandler } from './http-errors.ts';
import { httpMetricsHook } from './http-metrics-hook.ts';
import { jsonRpcError, JsonRpcCode } from './json-rpc-error.ts';
import {
  reloadSessionMemory,
  reloadStreamingSessions,
  renewSharedSessions,
  serveMcpRequest,
  sessionsInUseElsewhere,
  type McpEndpoint,
} from './mcp-endpoint.ts';
import { createMcpServerFactory, toolCalledBy, type McpServerSetup } from './mcp-server-factory.ts';
import { toNodeMcpHandler } from './node-mcp-adapter.ts';
import { ListenFeed } from './listen-feed.ts';
import { guardListens } from './modern-listen.ts';
import type { SharedSubscriptionBound } from './resource-subscribe.ts';
import type { BrokerMetrics } from './metrics.ts';
import { mcpPath, protectedResource, type ProtectedResource } from './protected-resource.ts';
import { ipRateLimitHook } from './rate-limit/ip-rate-limit.ts';
import {
  defaultIpRateLimit,
  defaultSubjectRateLimit,
  limiterFor,
  type RateLimitOptions,
} from './rate-limit/settings.ts';
import { scopeHook } from './scope-hook.ts';
import { subjectRateLimitHooks } from './rate-limit/subject-rate-limit.ts';
import { decorateIdentity, requireIdentity } from './request-identity.ts';
import { BoundedSessionState } from './session-state.ts';
import { SessionStore, type SessionStoreOptions } from './session-store.ts';
import { SharedMemory } from './shared-memory.ts';
import { preflightMaxAgeSeconds } from './preflight-max-age.ts';
import { SharedSessions } from './shared-sessions.ts';
import { defaultRebindingPolicy } from './dns-rebinding.ts';
import { openRedisChannel } from '../state/index.ts';

/**
 * Largest `/mcp` body: a full document (Mark SPEC limit) inside a tools/call,
 * with room for JSON escaping; also the SDK's own default (4 MiB).
 */
export const defaultMcpBodyLimitBytes = 4 * maxBodyBytes;
export const defaultScopes: readonly string[] = ['mark.read', 'mark.write'];

export type McpListenerOptions = {
  /** Public URL of this listener (origin, optional path prefix); the resource is `<publicUrl>/mcp`. */
  publicUrl: string;
  /** Issuers clients sign in with (RFC 9728 `authorization_servers`). */
  authorizationServers: readonly string[];
  scopes?: readonly string[];
  verifyBearer: BearerVerifier;
  server: McpServerSetup;
  /** Host names a request may address; default loopback plus the public URL's host. */
  allowedHosts?: readonly string[];
  /** Exact browser origins allowed; default the public URL's origin plus any loopback origin. */
  allowedOrigins?: readonly string[];
  /** CORS for browser clients (server.cors); absent or with no origins, no CORS headers are sent. */
  cors?: CorsSettings;
  bodyLimitBytes?: number;
  /** `stateful` (default) opens sessions on initialize; `stateless` never does (no sticky routing needed). */
  sessionMode?: 'stateful' | 'stateless';
  sessions?: Omit<SessionStoreOptions, 'onSizeChange' | 'inUseElsewhere' | 'renewShared'>;
  /** Redis shared by the replicas: sessions (and their limits) become cluster-wide, served by any replica. */
  sharedSessions?: { client: Redis; keyPrefix: string };
  rateLimit?: RateLimitOptions;
  metrics?: BrokerMetrics;
  logger?: FastifyServerOptions['logger'];
};

export type McpListener = { app: FastifyInstance; sessions: SessionStore; protectedResource: ProtectedResource };

export async function createMcpListener(options: McpListenerOptions): Promise<McpListener> {
  const resource = protectedResource({
    publicUrl: options.publicUrl,
    authorizationServers: options.authorizationServers,
    scopes: options.scopes ?? defaultScopes,
  });
  const app = Fastify({
    logger: options.logger ?? false,
    // Every tool call is a request here: its two access lines are debug (src/broker/http/request-log.ts).
    logController: new DebugRequestLines(),
    bodyLimit: options.bodyLimitBytes ?? defaultMcpBodyLimitBytes,
    // Idle keep-alive connections close with the listener; requests in flight are given the
    // shutdown bound (closeWithin, src/broker/http/close-within.ts).
    forceCloseConnections: 'idle',
    exposeHeadRoutes: false,
  });
  const metrics = options.metrics;
  // Set once the store exists: the endpoint's shared directory keeps the store's limits.
  let endpoint: McpEndpoint | undefined;
  const sessions = new SessionStore({
    ...options.sessions,
    ...(metrics ? { onSizeChange: (n: number) => metrics.setSessionCount(n) } : {}),
    inUseElsewhere: async (ids) => (endpoint === undefined ? new Set() : sessionsInUseElsewhere(endpoint, ids)),
    renewShared: async (ids) => (endpoint === undefined ? new Set<string>() : renewSharedSessions(endpoint, ids)),
  });
  decorateIdentity(app);
  app.setErrorHandler(plainErrorHandler);
  app.setNotFoundHandler(notFoundHandler);
  // Before anything else, so a rebound name learns nothing, not even the auth challenge.
  app.addHook(
    'onRequest',
    rebindingHook(
      defaultRebindingPolicy(options.publicUrl, {
        ...pick(options, 'allowedHosts'),
        ...pick(options, 'allowedOrigins'),
      }),
    ),
  );
  if (options.cors && options.cors.allowedOrigins.length > 0) await app.register(cors, corsOptions(options.cors));
  if (metrics) app.addHook('onResponse', httpMetricsHook(metrics, 'mcp'));
  await app.register(async (scope) => metadataRoutes(scope, resource, options));
  // Streamable HTTP has POST, GET and DELETE only; say so instead of a bare 404.
  app.route({
    method: ['PUT', 'PATCH'],
    url: mcpPath,
    handler: async (_request, reply) =>
      reply
        .code(405)
        .header('allow', 'GET, POST, DELETE')
        .send(jsonRpcError(JsonRpcCode.ServerError, 'Method not allowed')),
  });
  const ready = mcpEndpoint(options, sessions, app);
  endpoint = ready;
  await app.register(async (scope) => mcpRoutes(scope, ready, resource, options));
  startSweeping(app, sessions);
  return { app, sessions, protectedResource: resource };
}

/** RFC 9728 documents: unauthenticated, so charged to the caller's IP. */
function metadataRoutes(scope: FastifyInstance, resource: ProtectedResource, options: McpListenerOptions): void {
  const limits = options.rateLimit ?? {};
  if (!limits.disabled) {
    const buckets = limiterFor('mcp-ip', limits.ip ?? defaultIpRateLimit, limits);
    scope.addHook(
      'onRequest',
      ipRateLimitHook({ buckets, trustForwardedFor: limits.trustForwardedFor ?? false, ...pick(options, 'metrics') }),
    );
  }
  for (const path of resource.metadataPaths) {
    scope.get(path, async (_request, reply) =>
      reply.header('cache-control', 'public, max-age=300').send(resource.document),
    );
  }
}

/** `/mcp`: bearer check, then the subject's budget, then the endpoint; body errors as JSON-RPC. */
function mcpRoutes(
  scope: FastifyInstance,
  endpoint: McpEndpoint,
  resource: ProtectedResource,
  options: McpListenerOptions,
): void {
  const limits = options.rateLimit ?? {};
  scope.removeContentTypeParser('text/plain');
  ignoreBodiesBesidePost(scope);
  scope.setErrorHandler(mcpErrorHandler);
  scope.addHook(
    'onRequest',
    bearerAuthHook(options.verifyBearer, {
      resourceMetadataUrl: resource.metadataUrl,
      scopes: options.scopes ?? defaultScopes,
    }),
  );
  if (!limits.disabled) {
    const buckets = limiterFor('subject', limits.subject ?? defaultSubjectRateLimit, limits);
    const budget = subjectRateLimitHooks({ buckets, ...pick(options, 'metrics') });
    scope.addHook('onRequest', budget.onRequest);
    scope.addHook('preHandler', budget.preHandler);
  }
  scope.addHook(
    'preHandler',
    scopeHook({ tools: options.server.definitions.tools, resourceMetadataUrl: resource.metadataUrl }),
  );
  scope.route({
    method: ['GET', 'POST', 'DELETE'],
    url: mcpPath,
    handler: async (request, reply) => serveGuarded(endpoint, request, reply),
  });
}

/**
 * JSON bodies are read on POST only. Streamable HTTP gives GET and DELETE no
 * body, but the v2 SDK client sends its request headers, Content-Type:
 * application/json included, on its DELETE too, and fastify's JSON parser
 * refuses the empty body (FST_ERR_CTP_EMPTY_JSON_BODY, answered 400 -32700):
 * such a client could never end its session. Whatever a GET or DELETE carries
 * is ignored; a POST is parsed by fastify's own parser, with its default
 * prototype-poisoning refusals.
 */
function ignoreBodiesBesidePost(scope: FastifyInstance): void {
  const json = scope.getDefaultJsonParser('error', 'error');
  scope.removeContentTypeParser('application/json');
  // parseAs 'string': the body always arrives as text here.
  scope.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (request.method !== 'POST') return done(null, undefined);
    return json(request, body as string, done);
  });
}

function mcpEndpoint(options: McpListenerOptions, sessions: SessionStore, app: FastifyInstance): McpEndpoint {
  const logError = (error: unknown, message: string) => app.log.error({ err: error }, message);
  const recordToolCall = options.metrics?.recordToolCall;
  const shared =
    options.sharedSessions === undefined ? null : new SharedSessions({ ...options.sharedSessions, ...sessions.limits });
  const newServer = createMcpServerFactory({
    logError,
    ...(recordToolCall ? { recordToolCall } : {}),
    ...options.server,
    ...(shared === null
      ? {}
      : {
          sharedSubscriptions: subscriptionBoundIn(
            shared,
            (id) => endpoint.sessions.peek(id)?.shared,
            (id) => endpoint.announceSubscriptions?.(id),
          ),
        }),
  });
  // The tool each 2026-07-28 request calls, for the server the SDK asks for it (keyed by the request's own auth info).
  const calledTools = new WeakMap<AuthInfo, string>();
  const modernHandler = createMcpHandler(
    ({ authInfo }) =>
      newServer(new BoundedSessionState(), {
        listen: true,
        ...(authInfo === undefined ? {} : { onlyTool: calledTools.get(authInfo) }),
      }),
    {
      legacy: 'reject',
      // Open listen streams on this replica: as many as sessions, a listen being the 2026-07-28
      // counterpart of a session's event stream (one subject's share: guardListens).
      maxSubscriptions: sessions.limits.maxSessions,
      onerror: (error) => app.log.warn({ err: error }, 'MCP exchange failed'),
    },
  );
  // The worlds' changes reach open subscriptions/listen streams through the handler's event bus.
  const { subscriptions, gateway } = options.server;
  const feed =
    subscriptions === undefined
      ? undefined
      : new ListenFeed(subscriptions, gateway, (uri) => modernHandler.notify.resourceUpdated(uri));
  const modern = guardListens(toNodeMcpHandler(modernHandler.fetch), {
    perSubject: sessions.limits.maxSessionsPerSubject,
    ...(feed === undefined ? {} : { feed }),
  });
  app.addHook('onClose', async () => {
    await modernHandler.close();
    await sessions.closeAll();
  });
  const endpoint: McpEndpoint = {
    sessions,
    shared,
    restoring: new Map(),
    mode: options.sessionMode ?? 'stateful',
    newServer,
    modern: (req, res, body, auth) => {
      const tool = toolCalledBy(body);
      if (tool !== undefined && auth !== undefined) calledTools.set(auth, tool);
      return modern(req, res, body, auth);
    },
    logError,
  };
  if (options.sharedSessions !== undefined) {
    const { client, keyPrefix } = options.sharedSessions;
    const channel = openRedisChannel(
      client,
      `${keyPrefix}sessions:subscriptions`,
      (id) => void reloadSessionMemory(endpoint, id),
      (error) => app.log.warn({ err: error }, 'MCP subscription signal failed'),
      () => void reloadStreamingSessions(endpoint),
    );
    endpoint.announceSubscriptions = (id) => channel.publish(id);
    app.addHook('onClose', () => channel.close());
    // A channel of its own: a replica that misses a message here still ends its copy at the copy's next
    // touch of the record (a request, or the renewal of its event stream), which finds it gone. It costs
    // no connection: every channel of one client shares its subscriber connection
    // (src/broker/state/redis/redis-subscriber-hub.ts; docs/decisions.md, "The replicas' Redis channels
    // share one subscriber connection").
    const ended = openRedisChannel(
      client,
      `${keyPrefix}sessions:ended`,
      (id) => sessions.drop(id),
      (error) => app.log.warn({ err: error }, 'MCP session end signal failed'),
    );
    endpoint.announceEnded = (id) => ended.publish(id);
    app.addHook('onClose', () => ended.close());
  }
  return endpoint;
}

/**
 * The cluster-wide subscription bound in the session directory, taken through
 * the memory of this replica's copy of the session (`memoryOf`), which keeps
 * each place's token and the places Redis did not take back yet; a copy the
 * store did not keep (it serves one request) gets a memory of its own for it.
 * A change it makes is announced at once, as the copy's save after the
 * request does: a load of the copy between the two (another replica's
 * announcement) would leave the save nothing new to announce. A URI held
 * already is announced too: its place was taken again, and a copy that
 * dropped it while Redis did not answer learns that the client wants it back.
 */
function subscriptionBoundIn(
  shared: SharedSessions,
  memoryOf: (sessionId: string) => SharedMemory | undefined,
  announce: (sessionId: string) => void,
): SharedSubscriptionBound {
  return {
    async reserve(sessionId, uri, limit) {
      const memory = memoryOf(sessionId) ?? new SharedMemory(0);
      const { reservation, token } = await memory.reserve(shared, sessionId, uri, limit);
      if (reservation === 'added' || reservation === 'held') announce(sessionId);
      const giveBack = async () => {
        await memory.giveBack(shared, sessionId, uri, token);
        announce(sessionId);
      };
      return { reservation, giveBack };
    },
  };
}

/** Once hijacked, fastify no longer answers for us: a failure must still end the response. */
async function serveGuarded(endpoint: McpEndpoint, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  try {
    await serveMcpRequest(endpoint, request, reply, requireIdentity(request));
  } catch (error) {
    // Not hijacked yet: the scope's error handler answers with a JSON-RPC error.
    if (!reply.sent) throw error;
    request.log.error({ err: error }, 'MCP request failed after the reply was hijacked');
    if (reply.raw.headersSent) return void reply.raw.destroy();
    reply.raw
      .writeHead(500, { 'content-type': 'application/json' })
      .end(JSON.stringify(jsonRpcError(JsonRpcCode.InternalError, 'Internal error')));
  }
}

function startSweeping(app: FastifyInstance, sessions: SessionStore): void {
  const everyMs = Math.max(1000, Math.min(60_000, sessions.idleTtlMs / 4));
  const timer = setInterval(() => void sessions.sweep(), everyMs);
  timer.unref();
  app.addHook('onClose', async () => clearInterval(timer));
}

function pick<T extends object, K extends keyof T>(source: T, key: K): Partial<Pick<T, K>> {
  return source[key] === undefined ? {} : ({ [key]: source[key] } as Partial<Pick<T, K>>);
}

export type CorsSettings = { allowedOrigins: readonly string[]; allowCredentials: boolean; maxAgeMs: number };

/**
 * CORS on everything the MCP listener serves (`/mcp` and the resource
 * metadata), answered before the bearer check so a preflight (which carries
 * no Authorization) gets its answer. Exact origins are echoed; `*` is sent as
 * `*` and never with credentials (the config refuses the pair). Browsers may
 * read the session id and the auth challenge a client needs.
 */
function corsOptions(settings: CorsSettings): FastifyCorsOptions {
  const any = settings.allowedOrigins.includes('*');
  return {
    origin: any ? '*' : [...settings.allowedOrigins],
    credentials: !any && settings.allowCredentials,
    methods: ['GET', 'POST', 'DELETE', 'OPTIONS'],
    allowedHeaders: [
      'authorization',
      'content-type',
      'accept',
      'mcp-session-id',
      'mcp-protocol-version',
      'last-event-id',
    ],
    exposedHeaders: ['mcp-session-id', 'mcp-protocol-version', 'www-authenticate'],
    maxAge: preflightMaxAgeSeconds(settings.maxAgeMs),
    strictPreflight: true,
  };
}
