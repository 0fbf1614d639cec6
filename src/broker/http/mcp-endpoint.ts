import { randomUUID } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { NodeStreamableHTTPServerTransport, type NodeMcpRequestHandler } from '@modelcontextprotocol/node';
import { isInitializeRequest, isLegacyRequest, type McpServer } from '@modelcontextprotocol/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Identity } from '../identity.ts';
import { authInfoFor } from './auth-info.ts';
import { jsonRpcError, JsonRpcCode } from './json-rpc-error.ts';
import type { McpServerFactory } from './mcp-server-factory.ts';
import { BoundedSessionState } from './session-state.ts';
import type { SessionStore } from './session-store.ts';

/**
 * How one `/mcp` endpoint serves every client (decision recorded in the report):
 *
 * 1. A request carrying the 2026-07-28 per-request envelope goes to the SDK's
 *    modern handler (stateless by design of that revision).
 * 2. A 2025-era request with `Mcp-Session-Id` goes to that session, if it
 *    exists and belongs to the same subject; otherwise 404, so the client
 *    starts a new session (Streamable HTTP, "Session Management").
 * 3. A 2025-era `initialize` without a session id opens a stateful session
 *    (in `stateless` mode, or when the session store is full of other
 *    subjects' sessions, it is answered without one: nobody is evicted).
 * 4. Any other 2025-era POST without a session id is served statelessly by a
 *    fresh server; GET and DELETE without one get 405 (no stream to open).
 */
export type McpEndpoint = {
  sessions: SessionStore;
  mode: 'stateful' | 'stateless';
  newServer: McpServerFactory;
  modern: NodeMcpRequestHandler;
};

export async function serveMcpRequest(
  endpoint: McpEndpoint,
  request: FastifyRequest,
  reply: FastifyReply,
  identity: Identity,
): Promise<void> {
  const raw = request.raw as FastifyRequest['raw'] & { auth?: ReturnType<typeof authInfoFor> };
  raw.auth = authInfoFor(identity);
  const body = request.body;
  if (!(await isLegacyRequest(headerOnlyRequest(request), request.method === 'POST' ? body : undefined))) {
    hijack(reply);
    return endpoint.modern(raw, reply.raw, body);
  }
  const sessionId = singleHeader(request.headers['mcp-session-id']);
  if (sessionId !== undefined) return serveSession(endpoint, sessionId, request, reply, identity);
  if (request.method !== 'POST') {
    return reply
      .code(405)
      .header('allow', 'POST')
      .send(jsonRpcError(JsonRpcCode.ServerError, 'Method not allowed: GET and DELETE need an Mcp-Session-Id'));
  }
  if (endpoint.mode === 'stateful' && isInitializeRequest(body) && endpoint.sessions.canOpen(identity.subject))
    return openSession(endpoint, request, reply, identity);
  return serveStateless(endpoint, request, reply);
}

async function serveSession(
  endpoint: McpEndpoint,
  sessionId: string,
  request: FastifyRequest,
  reply: FastifyReply,
  identity: Identity,
): Promise<void> {
  const session = endpoint.sessions.use(sessionId, identity.subject);
  if (session === undefined)
    return void reply.code(404).send(jsonRpcError(JsonRpcCode.SessionNotFound, 'Session not found'));
  hijack(reply);
  await session.transport.handleRequest(request.raw, reply.raw, request.body);
}

async function openSession(
  endpoint: McpEndpoint,
  request: FastifyRequest,
  reply: FastifyReply,
  identity: Identity,
): Promise<void> {
  const state = new BoundedSessionState();
  const server = endpoint.newServer(state);
  const close = () => closeQuietly(transport, server);
  const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
    sessionIdGenerator: randomUUID,
    // Our tools answer in one message and never stream progress: a JSON body is
    // cheaper than an SSE stream per call. Server-initiated messages still use the GET stream.
    enableJsonResponse: true,
    onsessioninitialized: (id) => {
      state.bindId(id);
      // Lost a race for the last free place: the client's next request gets 404 and starts over.
      if (!endpoint.sessions.add({ id, subject: identity.subject, state, transport, close })) void close();
    },
    onsessionclosed: (id) => endpoint.sessions.forget(id),
  });
  await server.connect(transport);
  hijack(reply);
  await transport.handleRequest(request.raw, reply.raw, request.body);
  // An initialize the SDK refused never got a session id: nothing will reach this pair again.
  if (transport.sessionId === undefined) await close();
}

async function serveStateless(endpoint: McpEndpoint, request: FastifyRequest, reply: FastifyReply): Promise<void> {
  const server = endpoint.newServer(new BoundedSessionState());
  const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  reply.raw.on('close', () => void closeQuietly(transport, server));
  await server.connect(transport);
  hijack(reply);
  await transport.handleRequest(request.raw, reply.raw, request.body);
}

async function closeQuietly(transport: NodeStreamableHTTPServerTransport, server: McpServer): Promise<void> {
  await transport.close().catch(() => {});
  await server.close().catch(() => {});
}

/**
 * The SDK's era classifier reads only headers when handed the parsed body,
 * so build it a body-less Request instead of re-serialising the body.
 */
function headerOnlyRequest(request: FastifyRequest): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers as IncomingHttpHeaders)) {
    if (typeof value === 'string') headers.set(name, value);
    else if (Array.isArray(value)) headers.set(name, value.join(', '));
  }
  return new Request(`http://localhost${request.url}`, { method: request.method, headers });
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
