import { randomUUID } from 'node:crypto';
import { isInitializeRequest, type AuthInfo, type McpServer } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Identity } from '../identity.ts';
import { authInfoFor, identityFromAuthInfo } from './auth-info.ts';
import { jsonRpcError, JsonRpcCode } from './json-rpc-error.ts';
import { toolCalledBy, type McpServerFactory } from './mcp-server-factory.ts';
import { isLegacyEra } from './mcp-era.ts';
import { toNodeMcpHandler, type NodeMcpHandler } from './node-mcp-adapter.ts';
import { whenClosed } from './response-closed.ts';
import { BrokerHttpTransport } from './sdk-transport.ts';
import { BoundedSessionState } from './session-state.ts';
import { SharedMemory } from './shared-memory.ts';
import { expirySignal } from './stream-expiry.ts';
import type { Session, SessionStore } from './session-store.ts';
import type { FoundSession, SharedSessions } from './shared-sessions.ts';
import { isStateUnavailable } from '../state/index.ts';

/**
 * How one `/mcp` endpoint serves every client (docs/decisions.md, "MCP SDK v2, one /mcp for every client"):
 *
 * 1. A request carrying the 2026-07-28 per-request envelope goes to the SDK's
 *    modern handler (stateless by design of that revision).
 * 2. A 2025-era request with `Mcp-Session-Id` goes to that session, if it
 *    exists and belongs to the same subject; otherwise 404, so the client
 *    starts a new session (Streamable HTTP, "Session Management"). With a
 *    shared directory (Redis) every use is checked against the session's
 *    record there, and a replica that has no copy of the session rebuilds
 *    one, so a client whose replica died goes on with its next request.
 * 3. A 2025-era `initialize` without a session id opens a stateful session
 *    (in `stateless` mode, when the sessions, of this replica or of the
 *    cluster, are full of other subjects' ones, or when the directory cannot
 *    answer, it is answered without one: nobody is evicted).
 * 4. Any other 2025-era POST without a session id is served statelessly by a
 *    fresh server; GET and DELETE without one get 405 (no stream to open).
 */
export type McpEndpoint = {
  sessions: SessionStore;
  /** The cluster-wide session directory in Redis; null: sessions live on the replica that opened them. */
  shared: SharedSessions | null;
  /**
   * Tells the other replicas that a session's resource subscriptions changed
   * (Redis pub/sub), so the one holding the client's SSE stream reloads them
   * (`reloadSessionMemory`); absent without Redis.
   */
  announceSubscriptions?: (sessionId: string) => void;
  /**
   * Tells the other replicas that a session ended cluster-wide (evicted by its
   * subject's cap, or the client's DELETE), so they close their copies and the client's event stream
   * on them now, not at their next renewal (Redis pub/sub); absent without Redis.
   */
  announceEnded?: (sessionId: string) => void;
  /** The restores of shared sessions under way on this replica, by session id (see `restoreOnce`). */
  restoring: Map<string, Promise<Restored>>;
  mode: 'stateful' | 'stateless';
  newServer: McpServerFactory;
  /** The SDK's 2026-07-28 handler (`createMcpHandler`), adapted to Node. */
  modern: NodeMcpHandler;
  logError: (error: unknown, message: string) => void;
};

export async function serveMcpRequest(
  endpoint: McpEndpoint,
  request: FastifyRequest,
  reply: FastifyReply,
  identity: Identity,
): Promise<void> {
  const auth = authInfoFor(identity);
  const body = request.body;
  if (!isLegacyEra(request.method, request.headers, body)) {
    hijack(reply);
    return endpoint.modern(request.raw, reply.raw, body, auth);
  }
  const sessionId = singleHeader(request.headers['mcp-session-id']);
  if (sessionId !== undefined) return serveSession(endpoint, sessionId, request, reply, auth, identity);
  if (request.method !== 'POST') {
    return reply
      .code(405)
      .header('allow', 'POST')
      .send(jsonRpcError(JsonRpcCode.ServerError, 'Method not allowed: GET and DELETE need an Mcp-Session-Id'));
  }
  if (endpoint.mode === 'stateful' && isInitializeRequest(body)) {
    const id = await reserveSession(endpoint, identity, body.params as Record<string, unknown>);
    if (id !== null) return openSession(endpoint, id, request, reply, auth, identity);
  }
  return serveStateless(endpoint, request, reply, auth);
}

/**
 * A new session's id, with room made for it: in this replica's store, or
 * cluster-wide in the shared directory. Null when there is no room, or the
 * directory cannot answer: the initialize is then answered without a session
 * (nobody is evicted, and the client's calls work statelessly on any replica).
 */
async function reserveSession(
  endpoint: McpEndpoint,
  identity: Identity,
  initialize: Record<string, unknown>,
): Promise<string | null> {
  if (endpoint.shared === null) return endpoint.sessions.canOpen(identity.subject) ? randomUUID() : null;
  const id = randomUUID();
  try {
    const result = await endpoint.shared.open(id, { subject: identity.subject, initialize });
    if (!result.opened) return null;
    for (const evicted of result.evicted) {
      endpoint.sessions.drop(evicted);
      endpoint.announceEnded?.(evicted);
    }
    return id;
  } catch (error) {
    if (!isStateUnavailable(error)) throw error;
    endpoint.logError(error, 'MCP session directory unavailable: initialize answered without a session');
    return null;
  }
}

async function serveSession(
  endpoint: McpEndpoint,
  sessionId: string,
  request: FastifyRequest,
  reply: FastifyReply,
  auth: AuthInfo,
  identity: Identity,
): Promise<void> {
  let session = endpoint.sessions.use(sessionId, identity.subject);
  if (endpoint.shared !== null && (session === undefined || session.shared !== undefined)) {
    let found: FoundSession | null | 'unreachable';
    try {
      found = await endpoint.shared.touch(sessionId);
    } catch (error) {
      if (!isStateUnavailable(error)) throw error;
      found = 'unreachable';
    }
    if (found === 'unreachable') {
      // This replica's copy still serves its owner; a session held elsewhere waits for Redis.
      if (session === undefined) return storeUnavailable(reply);
    } else if (found === null) {
      endpoint.sessions.drop(sessionId);
      session = undefined;
    } else if (found.subject !== identity.subject) {
      // Someone else's session: answer as if it did not exist.
      session = undefined;
    } else if (session === undefined) {
      const restored = await restoreOnce(endpoint, sessionId, found);
      if (restored !== undefined && !restored.kept) {
        // No room for another copy here: this one serves the request and goes.
        if (request.method === 'DELETE' && !(await endShared(endpoint, restored.session, reply)))
          return restored.session.close();
        hijack(reply);
        await restored.session.transport.handleRequest(request.raw, reply.raw, request.body, auth);
        return restored.session.close();
      }
      session = restored?.session;
    } else if (session.shared !== undefined && session.shared.revision !== found.revision) {
      await loadMemory(endpoint, session);
    }
  }
  if (session === undefined)
    return void reply.code(404).send(jsonRpcError(JsonRpcCode.SessionNotFound, 'Session not found'));
  const ending = request.method === 'DELETE' && session.shared !== undefined;
  if (ending && !(await endShared(endpoint, session, reply))) return;
  hijack(reply);
  await session.transport.handleRequest(request.raw, reply.raw, request.body, auth);
  // A DELETE the SDK refused (a protocol version it does not take) still ended the record: the copy goes
  // too, ended here (docs/decisions.md). One it accepted was forgotten already (`onsessionclosed`).
  if (ending) endpoint.sessions.end(session.id);
}

/**
 * Ends a shared session's record before its DELETE reaches the SDK's
 * transport, which answers 200 and closes the copy: a DELETE answered while
 * the record lived on would leave the session usable on every other replica
 * (and its event stream held there) though the client was told it ended.
 * When Redis cannot answer, 503 with Retry-After (false): the copy is kept,
 * and the client may send its DELETE again. Once ended, the other replicas are
 * told to close their copies (`announceEnded`).
 */
async function endShared(endpoint: McpEndpoint, session: Session, reply: FastifyReply): Promise<boolean> {
  try {
    await endpoint.shared!.delete(session.id, session.subject);
  } catch (error) {
    if (!isStateUnavailable(error)) throw error;
    endpoint.logError(error, 'MCP session directory unavailable: DELETE refused, the session goes on');
    storeUnavailable(reply);
    return false;
  }
  endpoint.announceEnded?.(session.id);
  return true;
}

/** 503 with Retry-After: the session directory (Redis) did not answer. */
function storeUnavailable(reply: FastifyReply): void {
  void reply
    .code(503)
    .header('retry-after', '2')
    .send(jsonRpcError(JsonRpcCode.ServerError, 'Session store temporarily unavailable; retry shortly'));
}

async function openSession(
  endpoint: McpEndpoint,
  id: string,
  request: FastifyRequest,
  reply: FastifyReply,
  auth: AuthInfo,
  identity: Identity,
): Promise<void> {
  const session = connectSession(endpoint, id, identity.subject, endpoint.shared === null ? undefined : 0, () => {
    // Lost a race for the last free place: the client's next request gets 404 and starts over.
    if (!endpoint.sessions.add(session)) void session.close();
  });
  await session.ready;
  hijack(reply);
  await session.transport.handleRequest(request.raw, reply.raw, request.body, auth);
  // An initialize the SDK refused never got a session id: nothing will reach this pair again.
  if (session.web.sessionId === undefined) {
    await session.close();
    await endpoint.shared?.delete(id, identity.subject).catch(() => undefined);
  }
}

/** A copy restored from the shared directory; `kept`: held in this replica's store, else it serves one request. */
export type Restored = { session: Session; kept: boolean } | undefined;

/**
 * This replica's copy of shared session `id`, restored once however many of
 * its requests arrive together (a client that fails over reopens its GET
 * stream and sends a call, both to the new pod). Each restoring a copy of its
 * own would leave all but one outside the store: open, holding the client's
 * stream, and reached by neither notices, DELETE nor the sweep. A request
 * that waited uses the copy the store kept; when it kept none (no room, or
 * the session ended meanwhile) it gets a copy of its own for itself.
 */
async function restoreOnce(endpoint: McpEndpoint, id: string, found: FoundSession): Promise<Restored> {
  const pending = endpoint.restoring.get(id);
  if (pending !== undefined) {
    const restored = await pending;
    const kept = endpoint.sessions.use(id, found.subject);
    if (kept !== undefined) return { session: kept, kept: true };
    if (restored === undefined) return undefined;
    const own = await restoreSession(endpoint, id, found);
    return own === undefined ? undefined : { session: own, kept: false };
  }
  const restoring = restoreSession(endpoint, id, found)
    .then(
      (session): Restored => (session === undefined ? undefined : { session, kept: endpoint.sessions.add(session) }),
    )
    .finally(() => endpoint.restoring.delete(id));
  endpoint.restoring.set(id, restoring);
  return restoring;
}

/**
 * This replica's copy of a session another replica opened: a fresh server
 * and transport, brought to the initialized state by replaying the client's
 * own `initialize` (so the server knows its protocol version and
 * capabilities), then the tools' memory as last saved.
 */
async function restoreSession(endpoint: McpEndpoint, id: string, found: FoundSession): Promise<Session | undefined> {
  const session = connectSession(endpoint, id, found.subject, found.revision);
  await session.ready;
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const replay = async (message: object, extra: Record<string, string> = {}) => {
    const response = await session.web.handleRequest(
      new Request('http://replay.invalid/mcp', {
        method: 'POST',
        headers: { ...headers, ...extra },
        body: JSON.stringify(message),
      }),
    );
    await response.text();
    return response.ok;
  };
  const initialized =
    (await replay({ jsonrpc: '2.0', id: 0, method: 'initialize', params: found.initialize })) &&
    session.web.sessionId === id &&
    (await replay({ jsonrpc: '2.0', method: 'notifications/initialized' }, { 'mcp-session-id': id }));
  if (!initialized) {
    await session.close();
    return undefined;
  }
  // Revision 0: nothing was ever saved.
  if (found.revision > 0) await loadMemory(endpoint, session);
  return session;
}

/** The copy reads the session's memory again; when Redis cannot answer it serves with what it has. */
async function loadMemory(endpoint: McpEndpoint, session: Session): Promise<void> {
  await session.shared
    ?.load(endpoint.shared!, session.id, session.state)
    .catch((error) => endpoint.logError(error, 'MCP session memory not loaded'));
}

type ConnectedSession = Session & { web: BrokerHttpTransport; ready: Promise<void> };

/**
 * A server and its transport for session `id`. For a shared session
 * (`revision` given), the tools' memory is saved to Redis before each reply
 * leaves, so the client's next request finds it on whichever replica serves it.
 */
function connectSession(
  endpoint: McpEndpoint,
  id: string,
  subject: string,
  revision: number | undefined,
  onInitialized?: () => void,
): ConnectedSession {
  const state = new BoundedSessionState(id);
  const server = endpoint.newServer(state);
  const web: BrokerHttpTransport = new BrokerHttpTransport({
    sessionIdGenerator: () => id,
    // Our tools answer in one message and never stream progress: a JSON body is
    // cheaper than an SSE stream per call. Server-initiated messages still use the GET stream.
    enableJsonResponse: true,
    ...(onInitialized ? { onsessioninitialized: onInitialized } : {}),
    // The client's DELETE: a shared session's record is gone already (`endShared`, before the transport saw it).
    onsessionclosed: () => endpoint.sessions.forget(id),
  });
  const shared = revision === undefined ? undefined : new SharedMemory(revision);
  const serve = toNodeMcpHandler(
    async (request, options) => {
      const response = await web.handleRequest(request, options);
      if (shared !== undefined && (await saveMemory(endpoint, session, shared))) endpoint.announceSubscriptions?.(id);
      return response;
    },
    { requestSignal: false },
  );
  // The client's GET event streams open on this copy: while one is, the idle sweep keeps the session.
  // Each ends when the token that opened it is no longer accepted (the session does not: the client
  // reconnects with a fresh token, which is verified as every request's is).
  let streams = 0;
  const session: ConnectedSession = {
    id,
    subject,
    state,
    web,
    ready: server.connect(web),
    close: async () => {
      await web.close().catch(() => {});
      await server.close().catch(() => {});
    },
    transport: {
      handleRequest: async (req, res, body, auth) => {
        if (req.method !== 'GET') return serve(req, res, body, auth);
        streams += 1;
        whenClosed(res, () => {
          streams -= 1;
        });
        return serve(req, res, body, auth, expirySignal(res, identityFromAuthInfo(auth)));
      },
    },
    streaming: () => streams > 0,
    ...(shared === undefined ? {} : { shared }),
  };
  return session;
}

/**
 * Renews the directory records of shared sessions whose client's event stream
 * is open on this replica (SessionStore's `renewShared`), and resolves to the
 * ids renewed; a record found gone (the session ended through another
 * replica) ends this copy too, and a copy whose memory is older than the
 * record's reads it again: an announcement of its subscriptions lost on
 * pub/sub (src/broker/state/redis/redis-channel.ts, best effort) reaches the
 * stream here at the latest. All are asked at once (ioredis writes them on
 * its one connection without waiting for each answer), and a record that
 * cannot be renewed leaves the others renewed; the store leaves it unmarked,
 * so the next sweep asks again.
 */
export async function renewSharedSessions(endpoint: McpEndpoint, ids: readonly string[]): Promise<ReadonlySet<string>> {
  const renewed = new Set<string>();
  const directory = endpoint.shared;
  if (directory === null) return renewed;
  const touched = await Promise.allSettled(ids.map((id) => directory.touch(id)));
  let failure: PromiseRejectedResult | undefined;
  const stale: Session[] = [];
  touched.forEach((result, index) => {
    const id = ids[index] as string;
    if (result.status === 'rejected') failure ??= result;
    else if (result.value === null) endpoint.sessions.drop(id);
    else {
      renewed.add(id);
      const copy = endpoint.sessions.peek(id);
      if (copy?.shared !== undefined && copy.shared.revision !== result.value.revision) stale.push(copy);
    }
  });
  await Promise.all(stale.map((copy) => loadMemory(endpoint, copy)));
  if (failure !== undefined)
    endpoint.logError(
      failure.reason,
      'MCP session directory unavailable: some streaming sessions not renewed until the next sweep',
    );
  return renewed;
}

/**
 * Another replica changed session `id`'s memory (its resource subscriptions):
 * this replica's copy, if it has one, reads the memory again, and its
 * subscriptions follow (src/broker/http/resource-subscribe.ts).
 */
export async function reloadSessionMemory(endpoint: McpEndpoint, id: string): Promise<void> {
  const session = endpoint.sessions.peek(id);
  if (session?.shared === undefined || endpoint.shared === null) return;
  await loadMemory(endpoint, session);
}

/**
 * This replica's channel of subscription announcements was down a moment
 * (src/broker/state/redis/redis-channel.ts): the copies holding their
 * client's event stream, which notify without a request to bring them up to
 * date, read their memory again, in case an announcement was lost meanwhile.
 */
export async function reloadStreamingSessions(endpoint: McpEndpoint): Promise<void> {
  if (endpoint.shared === null) return;
  await Promise.all(endpoint.sessions.streamingShared().map((session) => loadMemory(endpoint, session)));
}

/**
 * Which of these shared sessions, idle on this replica, are still in use
 * through other replicas: the store's sweep keeps their copies (the client's
 * event stream may be held here while its calls go elsewhere). When Redis
 * cannot answer, all of them: the copies go on serving their owner, as they do
 * for requests, and the next sweep asks again.
 */
export async function sessionsInUseElsewhere(
  endpoint: McpEndpoint,
  ids: readonly string[],
): Promise<ReadonlySet<string>> {
  if (endpoint.shared === null) return new Set();
  try {
    return await endpoint.shared.inUse(ids);
  } catch (error) {
    endpoint.logError(error, 'MCP session directory unavailable: idle session copies kept until the next sweep');
    return new Set(ids);
  }
}

/** Saves the copy's memory before the reply leaves; true when its resource subscriptions changed. */
async function saveMemory(endpoint: McpEndpoint, session: Session, shared: SharedMemory): Promise<boolean> {
  try {
    return await shared.save(endpoint.shared!, session.id, session.state);
  } catch (error) {
    // The tools' memory is a hint (mark_fetch's "unchanged"): losing one save costs a full body later.
    // Subscriptions not saved stay on this copy and go with its next save.
    endpoint.logError(error, 'MCP session memory not saved');
    return false;
  }
}

async function serveStateless(
  endpoint: McpEndpoint,
  request: FastifyRequest,
  reply: FastifyReply,
  auth: AuthInfo,
): Promise<void> {
  const tool = toolCalledBy(request.body);
  const server = endpoint.newServer(new BoundedSessionState(), tool === undefined ? {} : { onlyTool: tool });
  const transport = new BrokerHttpTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  reply.raw.on('close', () => void closeQuietly(transport, server));
  await server.connect(transport);
  hijack(reply);
  await toNodeMcpHandler((webRequest, options) => transport.handleRequest(webRequest, options), {
    requestSignal: false,
  })(request.raw, reply.raw, request.body, auth);
}

async function closeQuietly(transport: BrokerHttpTransport, server: McpServer): Promise<void> {
  await transport.close().catch(() => {});
  await server.close().catch(() => {});
}

function singleHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Hands the response to the SDK's transport, keeping the headers the hooks
 * already set on the reply (CORS): once hijacked, fastify writes none of them,
 * and Node merges what is set here with the transport's own writeHead.
 */
function hijack(reply: FastifyReply): void {
  for (const [name, value] of Object.entries(reply.getHeaders()))
    if (value !== undefined) reply.raw.setHeader(name, value as string | number | string[]);
  reply.hijack();
}
