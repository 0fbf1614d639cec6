/**
 * The broker's real MCP surface (every tool, resource and prompt, over a real
 * world) for the official conformance suite. The suite sends no Authorization
 * header, so the bearer verifier accepts every request as one test identity;
 * everything else is the production wiring. Test use only.
 */
import type { AddressInfo } from 'node:net';
import { closeWithin } from '../../src/broker/http/close-within.ts';
import { mkdtemp, mkdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { createMcpListener } from '../../src/broker/http/mcp-listener.ts';
import { brokerDefinitions } from '../../src/broker/definitions.ts';
import { openWorldGateway } from '../../src/broker/worlds/index.ts';
import { parseBrokerConfig } from '../../src/broker/config/index.ts';
import { generateSigningKeyPem } from '../../src/broker/auth/signing-key.ts';
import type { Identity } from '../../src/broker/identity.ts';
import { startWorldServer } from '../../src/world/world-server.ts';
import { testTls } from '../world/world-fixture.ts';

const identity: Identity = {
  subject: 'conformance',
  email: 'conformance@example.com',
  emailVerified: true,
  groups: [],
  scopes: ['mark.read', 'mark.write'],
  issuedBy: 'broker',
};

export async function startConformanceBroker(port = 0): Promise<{ url: string; close(): Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'demarkus-conformance-'));
  const tls = await testTls();
  await mkdir(join(dir, 'w'), { recursive: true });
  await writeFile(join(dir, 'ca.pem'), tls.cert);
  await writeFile(join(dir, 'w', 'tokens.toml'), '[tokens]\n');
  const world = await startWorldServer({
    root: join(dir, 'w', 'root'),
    tokensFile: join(dir, 'w', 'tokens.toml'),
    listen: { host: '127.0.0.1', port: 0 },
    tls,
  });
  // The per-world index resource the broker lists must be readable.
  await world.world.context.store.publish(
    '/index.md',
    Buffer.from('# Docs\n\nThe conformance world.\n'),
    { tags: 'index' },
    {},
  );
  const config = parseBrokerConfig(
    stringify({
      server: { addr: '127.0.0.1:0', publicURL: 'http://localhost', mcp: { addr: '127.0.0.2:0' } },
      oidc: { brokerSigningKey: generateSigningKeyPem() },
      storage: { backend: 'file', dir: join(dir, 'state') },
      worlds: [
        {
          name: 'docs',
          internalAddress: `localhost:${world.port}`,
          tokensFile: join(dir, 'w', 'tokens.toml'),
          defaultToken: { paths: ['/**'] },
        },
      ],
      worldDialer: { caFile: join(dir, 'ca.pem') },
    }),
    {},
  );
  const gateway = await openWorldGateway(config);
  const listener = await createMcpListener({
    publicUrl: 'http://localhost',
    authorizationServers: ['http://localhost'],
    verifyBearer: async () => identity,
    server: {
      serverInfo: { name: 'demarkus-broker', version: '0.1.0' },
      definitions: brokerDefinitions(gateway),
      gateway,
    },
    rateLimit: { disabled: true },
  });
  await listener.app.listen({ host: '127.0.0.1', port });
  const address = listener.app.server.address() as AddressInfo;
  return {
    url: `http://localhost:${address.port}/mcp`,
    async close() {
      await closeWithin(listener.app, 0);
      await gateway.close();
      await world.close();
    },
  };
}

if (import.meta.main) {
  const broker = await startConformanceBroker(Number(process.argv[2] ?? 0));
  process.stdout.write(`${broker.url}\n`);
  const stop = () => void broker.close().then(() => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}
