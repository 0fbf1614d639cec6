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
 * The two eras are told apart by path, not by reading the body as the broker
 * must on its one /mcp, so that neither floor pays for a classification.
 * Whatever a broker tool call costs beyond a call of `constant` here (and
 * beyond the world request it makes) is the broker's own work. bench/load.ts
 * measures the session floor under concurrent clients; bench/broker.ts both
 * eras beside each sequential tool call.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { NodeStreamableHTTPServerTransport, toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, McpServer } from '@modelcontextprotocol/server';

export interface MinimalMcpServer {
  /** The session (2025-era) endpoint. */
  url: string;
  /** The stateless 2026-07-28 endpoint. */
  modernUrl: string;
  close(): Promise<void>;
}

/** The name of the minimal server's one tool. */
export const constantTool = 'constant';

const modernPath = '/mcp-2026-07-28';

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
  const http: Server = createServer((request: IncomingMessage, response) => {
    if (request.url === modernPath) return void modern(request, response);
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
    close: async () => {
      await modernHandler.close();
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
