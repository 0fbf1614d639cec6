import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { WorldServer } from '../../src/world/world-server.ts';
import { startBroker, type RunningBroker } from '../../src/broker/broker.ts';
import { parseBrokerConfig, type BrokerConfig } from '../../src/broker/config/index.ts';
import { generateSigningKeyPem } from '../../src/broker/auth/signing-key.ts';
import { mintBrokerToken } from '../../src/broker/auth/mint-broker-token.ts';
import { startLoopbackWorldServer, testTls } from '../world/world-fixture.ts';

export async function freePort(): Promise<number> {
  const [port] = await freePorts(1);
  return port as number;
}

/**
 * `count` distinct free loopback ports. All are held open until each has its
 * port: asked one after another, the system may hand the port it just freed
 * out again, and two listeners then get the same address (a CI run saw the
 * broker's two listeners refused as "must differ").
 */
export async function freePorts(count: number): Promise<number[]> {
  const servers = Array.from({ length: count }, () => createServer());
  try {
    return await Promise.all(
      servers.map(
        (server) =>
          new Promise<number>((resolve, reject) => {
            server.once('error', reject);
            server.listen(0, '127.0.0.1', () => {
              const address = server.address();
              resolve(typeof address === 'object' && address !== null ? address.port : 0);
            });
          }),
      ),
    );
  } finally {
    await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  }
}

export type StackWorld = { name: string; server: WorldServer; port: number; root: string; tokensFile: string };

export type Stack = {
  dir: string;
  worlds: Map<string, StackWorld>;
  broker: RunningBroker;
  config: BrokerConfig;
  mcpUrl: URL;
  token(email?: string, groups?: string[]): Promise<string>;
  connect(token?: string): Promise<Client>;
  stopWorld(name: string): Promise<void>;
  restartWorld(name: string): Promise<void>;
  /** A fresh broker process state (empty memory) on the same configuration and ports. */
  restartBroker(): Promise<void>;
  close(): Promise<void>;
};

/**
 * The whole stack on loopback: real world servers over real QUIC, the real
 * broker with both listeners, and the official MCP SDK client over HTTP.
 */
export async function startStack(
  options: {
    worlds?: string[];
    brokerConfig?: Record<string, unknown>;
    allow?: Record<string, unknown>;
    /** Every world's per-address request rate limit (default: none). */
    worldRateLimit?: { perSecond: number; burst: number };
  } = {},
): Promise<Stack> {
  const dir = await mkdtemp(join(tmpdir(), 'demarkus-stack-'));
  const tls = await testTls();
  await writeFile(join(dir, 'ca.pem'), tls.cert);
  const names = options.worlds ?? ['root', 'team-a', 'team-b'];
  const worlds = new Map<string, StackWorld>();
  const startWorld = async (name: string, port: number) => {
    const root = join(dir, name, 'root');
    const tokensFile = join(dir, name, 'tokens.toml');
    const server = await startLoopbackWorldServer({
      name,
      root,
      tokensFile,
      port,
      ...(options.worldRateLimit ? { rateLimit: options.worldRateLimit } : {}),
    });
    worlds.set(name, { name, server, port: server.port, root, tokensFile });
  };
  for (const name of names) {
    const { mkdir } = await import('node:fs/promises');
    await mkdir(join(dir, name), { recursive: true });
    await writeFile(join(dir, name, 'tokens.toml'), '[tokens]\n');
    await startWorld(name, 0);
  }
  // A broker that fails to start must not leave the worlds listening: the test file would never end.
  const front = await startBrokerFront(dir, [...worlds.values()], options).catch(async (error: unknown) => {
    for (const world of worlds.values()) await world.server.close().catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
    throw error;
  });
  const { config, mcpUrl, token, connect, clients } = front;
  return {
    dir,
    worlds,
    get broker() {
      return front.broker;
    },
    config,
    mcpUrl,
    token,
    connect,
    async stopWorld(name) {
      await worlds.get(name)!.server.close();
    },
    async restartWorld(name) {
      await startWorld(name, worlds.get(name)!.port);
    },
    async restartBroker() {
      for (const client of clients.splice(0)) await client.close().catch(() => undefined);
      await front.broker.close();
      front.broker = await startBroker(config);
    },
    async close() {
      await front.close();
      for (const world of worlds.values()) await world.server.close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type BrokerFront = {
  broker: RunningBroker;
  config: BrokerConfig;
  mcpUrl: URL;
  clients: Client[];
  token(email?: string, groups?: string[]): Promise<string>;
  connect(token?: string): Promise<Client>;
  /** Closes the clients and the broker (not the worlds). */
  close(): Promise<void>;
};

/**
 * The real broker (both listeners, file state under `dir`, trusting `dir/ca.pem`)
 * in front of worlds already listening on loopback, wherever they run.
 */
export async function startBrokerFront(
  dir: string,
  worlds: readonly { name: string; port: number; tokensFile: string }[],
  options: { brokerConfig?: Record<string, unknown>; allow?: Record<string, unknown> } = {},
): Promise<BrokerFront> {
  const [issuerPort, mcpPort] = await freePorts(2);
  const document = {
    server: {
      addr: `127.0.0.1:${issuerPort}`,
      publicURL: `http://127.0.0.1:${issuerPort}`,
      mcp: {
        addr: `127.0.0.1:${mcpPort}`,
        publicURL: `http://127.0.0.1:${mcpPort}`,
        firstMintInitialBackoff: '50ms',
        firstMintMaxBackoff: '400ms',
        firstMintMaxAttempts: 10,
      },
      management: { addr: '127.0.0.1:0' },
    },
    oidc: { brokerSigningKey: generateSigningKeyPem() },
    storage: { backend: 'file', dir: join(dir, 'broker-state') },
    worlds: worlds.map((w) => ({
      name: w.name,
      internalAddress: `localhost:${w.port}`,
      tokensFile: w.tokensFile,
      defaultToken: { paths: ['/**'] },
      ...(options.allow?.[w.name] ? { allow: options.allow[w.name] } : {}),
    })),
    worldDialer: { caFile: join(dir, 'ca.pem'), requestTimeout: '3s', failureThreshold: 2, cooldown: '300ms' },
    ...options.brokerConfig,
  };
  // `serverExtra` adds keys to the server block instead of replacing it.
  const extra = options.brokerConfig?.serverExtra as Record<string, unknown> | undefined;
  if (extra !== undefined) {
    delete (document as Record<string, unknown>).serverExtra;
    document.server = { ...document.server, ...extra } as typeof document.server;
  }
  // `mcpExtra` adds keys to the server.mcp block the same way.
  const mcpExtra = options.brokerConfig?.mcpExtra as Record<string, unknown> | undefined;
  if (mcpExtra !== undefined) {
    delete (document as Record<string, unknown>).mcpExtra;
    document.server.mcp = { ...document.server.mcp, ...mcpExtra } as typeof document.server.mcp;
  }
  // `dialerExtra` adds keys to the worldDialer block (a longer requestTimeout, say) and keeps its caFile.
  const dialerExtra = options.brokerConfig?.dialerExtra as Record<string, unknown> | undefined;
  if (dialerExtra !== undefined) {
    delete (document as Record<string, unknown>).dialerExtra;
    document.worldDialer = { ...document.worldDialer, ...dialerExtra } as typeof document.worldDialer;
  }
  const config = parseBrokerConfig(stringify(document), {});
  const broker = await startBroker(config);
  const mcpUrl = new URL(broker.trust.resource);
  const token = (email = 'alice@example.com', groups: string[] = []) =>
    mintBrokerToken({
      key: front.broker.trust.key,
      issuer: front.broker.trust.issuer,
      audience: front.broker.trust.resource,
      email,
      groups,
      ttlSeconds: 600,
    });
  const clients: Client[] = [];
  const front: BrokerFront = {
    broker,
    config,
    mcpUrl,
    clients,
    token,
    async connect(bearer) {
      const client = new Client({ name: 'e2e', version: '1.0.0' });
      const transport = new StreamableHTTPClientTransport(mcpUrl, {
        requestInit: { headers: { Authorization: `Bearer ${bearer ?? (await token())}` } },
      });
      await client.connect(transport);
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) await client.close().catch(() => undefined);
      await front.broker.close();
    },
  };
  return front;
}

/** The text of a tool result's first content block. */
export function resultText(result: unknown): string {
  const content = (result as { content?: Array<{ type: string; text?: string }> }).content ?? [];
  return content.map((c) => c.text ?? '').join('');
}

export function isError(result: unknown): boolean {
  return (result as { isError?: boolean }).isError === true;
}
