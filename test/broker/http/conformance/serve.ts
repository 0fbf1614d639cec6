/**
 * A small MCP listener for the official conformance suite, which sends no
 * Authorization header: the bearer verifier is swapped for one that accepts
 * any request as a fixed test identity. Never used outside tests.
 *
 * The suite needs Node >= 22 (its bin's shebang picks the system node, so
 * call its entry with the project's Node 24) and a localhost URL for the
 * dns-rebinding scenario:
 *
 *   node_modules/.bin/node test/broker/http/conformance/serve.ts 3391 &
 *   C=node_modules/@modelcontextprotocol/conformance/dist/index.js
 *   node_modules/.bin/node $C server --url http://localhost:3391/mcp --requirements 2025-11-25 -o out/2025
 *   node_modules/.bin/node $C server --url http://localhost:3391/mcp --requirements 2026-07-28 -o out/2026
 *   # add --expected-failures <baseline.yml> (YAML `server: [scenario, ...]`) for a CI exit code of 0
 */
import type { AddressInfo } from 'node:net';
import { closeWithin } from '../../../../src/broker/http/close-within.ts';
import { createMcpListener } from '../../../../src/broker/http/mcp-listener.ts';
import type { Identity } from '../../../../src/broker/identity.ts';
import { definitions, issuer, listingGateway } from '../fixtures.ts';

const conformanceIdentity: Identity = {
  subject: 'conformance',
  email: 'conformance@example.com',
  emailVerified: true,
  groups: [],
  issuedBy: 'broker',
};

const port = Number(process.argv[2] ?? 0);
const listener = await createMcpListener({
  publicUrl: 'http://localhost',
  authorizationServers: [issuer],
  verifyBearer: async () => conformanceIdentity,
  server: {
    serverInfo: { name: 'demarkus-broker-conformance', version: '0.0.0' },
    definitions,
    gateway: listingGateway,
  },
  rateLimit: { disabled: true },
});
await listener.app.listen({ host: '127.0.0.1', port });
const address = listener.app.server.address() as AddressInfo;
process.stdout.write(`http://localhost:${address.port}/mcp\n`);
const stop = () => void closeWithin(listener.app, 0).then(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
