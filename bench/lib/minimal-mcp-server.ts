/**
 * The floor of an MCP tool call on this stack: the SDK's own server and
 * Streamable HTTP transport with one tool that returns a constant, stateful
 * sessions, JSON responses, no auth, over node:http on loopback. Whatever a
 * broker tool call costs beyond a call of `constant` here (and beyond the
 * world request it makes) is the broker's own work. bench/load.ts measures it
 * under concurrent clients; bench/broker.ts beside each sequential tool call.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { NodeStreamableHTTPServerTransport } from '@modelcontextprotocol/node';
import { McpServer } from '@modelcontextprotocol/server';

export interface MinimalMcpServer {
  /** The session (2025-era) endpoint. */
  url: string;
  close(): Promise<void>;
}

/** The name of the minimal server's one tool. */
export const constantTool = 'constant';

export async function startMinimalMcpServer(): Promise<MinimalMcpServer> {
  const sessions = new Map<string, NodeStreamableHTTPServerTransport>();
  const newSession = async (): Promise<NodeStreamableHTTPServerTransport> => {
    const server = new McpServer({ name: 'floor', version: '1.0.0' });
    server.registerTool(constantTool, { description: 'Returns a constant.' }, async () => ({
      content: [{ type: 'text' as const, text: 'constant' }],
    }));
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
    close: async () => {
      for (const transport of sessions.values()) await transport.close().catch(() => undefined);
      http.closeAllConnections();
      await new Promise<void>((resolve) => http.close(() => resolve()));
    },
  };
}
