/**
 * The floor of an MCP tool call on this stack: the SDK's own server with one
 * tool that returns a constant, no auth, over node:http on loopback, in both
 * eras the broker serves on its /mcp:
 *  - `url`: 2025-era stateful sessions, the SDK's Node Streamable HTTP
 *    transport with JSON responses (as bench/load.ts has always measured it);
 *  - `modernUrl`: stateless 2026-07-28 requests, the SDK's own
 *    `createMcpHandler` (as the broker's src/broker/http/mcp-listener.ts
 *    builds it, `legacy: 'reject'`, a fresh server per request) behind the
 *    SDK's `toNodeHandler`. The broker puts its own adapter there instead
 *    (src/broker/http/node-mcp-adapter.ts, which skips the SDK adapter's
 *    second serialisation of the body), so on that era the floor is the
 *    SDK's out-of-the-box cost, not a copy of the broker's wiring.
 *  - `brokerWiredUrl`: 2025-era sessions again, through the wiring the broker
 *    uses for them: the body read and parsed first (fastify does it there),
 *    then the SDK's web-standard transport behind the broker's own adapter
 *    (`toNodeMcpHandler`, src/broker/http/mcp-endpoint.ts). The SDK's Node
 *    transport of `url` costs 0.2-0.3 ms of CPU more per call than this
 *    (docs/benchmarks.md, "Where the broker's own per-call CPU goes"), so the
 *    broker's own work on a session call is read against this one too.
 * The two eras are told apart by path, not by reading the body as the broker
 * must on its one /mcp, so that neither floor pays for a classification.
 * Whatever a broker tool call costs beyond a call of `constant` here (and
 * beyond the world request it makes) is the broker's own work. bench/load.ts
 * measures the session floor under concurrent clients; bench/broker.ts both
 * eras beside each sequential tool call.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { toNodeMcpHandler, type NodeMcpHandler } from '../../src/broker/http/node-mcp-adapter.ts';

export interface MinimalMcpServer {
  /** The session (2025-era) endpoint. */
  url: string;
  /** The stateless 2026-07-28 endpoint. */
  modernUrl: string;
  /** The session endpoint through the broker's wiring (parsed body, web-standard transport, the broker's adapter). */
  brokerWiredUrl: string;
  close(): Promise<void>;
}

/** The name of the minimal server's one tool. */
export const constantTool = 'constant';

const modernPath = '/mcp-2026-07-28';
const brokerWiredPath = '/mcp-broker-wired';

function constantServer(): McpServer {
  const server = new McpServer({ name: 'floor', version: '1.0.0' });
  server.registerTool(constantTool, { description: 'Returns a constant.' }, async () => ({
    content: [{ type: 'text' as const, text: 'constant' }],
  }));
  return server;
}

export async function startMinimalMcpServer(): Promise<MinimalMcpServer> {
  const modernHandler = createMcpHandler(constantServer, { legacy: 'reject' });
  const modern = toNodeHandler(modernHandler);
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const newSession = async (): Promise<NodeStreamableHTTPServerTransport> => {
    const server = constantServer();
    const transport: NodeStreamableHTTPServerTransport = new NodeStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (id) => void sessions.set(id, transport),
      onsessionclosed: (id) => void sessions.delete(id),
    });
    await server.connect(transport);
    return transport;
  };
  const wired = new Map<string, { transport: WebStandardStreamableHTTPServerTransport; handle: NodeMcpHandler }>();
  const newWiredSession = async () => {
    const server = constantServer();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: randomUUID,
      enableJsonResponse: true,
      onsessioninitialized: (id) => void wired.set(id, session),
      onsessionclosed: (id) => void wired.delete(id),
    });
    const session = {
      transport,
      handle: toNodeMcpHandler((webRequest, options) => transport.handleRequest(webRequest, options), {
        requestSignal: false,
      }),
    };
    await server.connect(transport);
    return session;
  };
  const serveWired = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const id = request.headers['mcp-session-id'];
    const session = (typeof id === 'string' ? wired.get(id) : undefined) ?? (await newWiredSession());
    await session.handle(request, response, text === '' ? undefined : JSON.parse(text), undefined);
  };
  const http: Server = createServer((request: IncomingMessage, response) => {
    if (request.url === modernPath) return void modern(request, response);
    if (request.url === brokerWiredPath) return void serveWired(request, response);
    const id = request.headers['mcp-session-id'];
    const known = typeof id === 'string' ? sessions.get(id) : undefined;
    void (known ? Promise.resolve(known) : newSession()).then((transport) =>
      transport.handleRequest(request, response),
    );
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const address = http.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    modernUrl: `http://127.0.0.1:${port}${modernPath}`,
    brokerWiredUrl: `http://127.0.0.1:${port}${brokerWiredPath}`,
    close: async () => {
      await modernHandler.close();
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      for (const { transport } of wired.values()) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
