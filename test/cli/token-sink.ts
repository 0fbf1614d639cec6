/**
 * An HTTP server that records every request it is sent and answers 401, as a
 * stranger's server could: the attacks on where the CLI sends a kept token
 * (test/security/signed-in-token-destination.test.ts,
 * test/security/doctor-token-destination.test.ts) look at what reached it.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type TokenSink = { url: string; requests: { url: string; headers: IncomingHttpHeaders }[]; server: Server };

/** Listens on `host`:`port` (0: any free port); rejects with the listen error (EADDRINUSE when the port is taken). */
export async function startTokenSink({ host = '127.0.0.1', port = 0 } = {}): Promise<TokenSink> {
  const requests: TokenSink['requests'] = [];
  const server = createServer((request, response) => {
    requests.push({ url: request.url ?? '', headers: request.headers });
    request.resume();
    response.writeHead(401).end();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  return { url: `http://${host}:${(server.address() as AddressInfo).port}/mcp`, requests, server };
}
