import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { generateDevCertificate, type TlsKeyPair } from '../transport/index.ts';
import { startWorldServer, type WorldServer } from '../world/world-server.ts';
import { encodeRequest } from '../protocol/request.ts';
import type { WorldLogger } from '../world/handler/context.ts';
import { seedWorlds } from './seed-documents.ts';
import { knowledgeSeeds } from './seed-knowledge.ts';
import { seedGraphMarkdown } from './seed-graph.ts';
import { devPublisherToken, devTokensToml } from './dev-tokens.ts';
import { devBrokerConfig } from './broker-config.ts';
import { startBroker, type BrokerOptions, type RunningBroker, type ShutdownOptions } from '../broker/broker.ts';
import { mintBrokerToken } from '../broker/auth/mint-broker-token.ts';
import { loadOidcProvider, startDevIdp, type DevIdp } from './idp.ts';
import { randomBytes } from 'node:crypto';
import { loopbackNames } from '../transport/loopback.ts';

export type DevStackOptions = {
  dataDir: string;
  host: string;
  /** The first world listens here, the next ones on the following ports. */
  basePort: number;
  /** The broker's issuer listener; its MCP listener, the IdP and its management listener take the next three ports. */
  brokerPort: number;
  /** Who the printed development MCP token is for. */
  devEmail: string;
  /** The development IdP's port (default: the MCP port + 1); 0 picks a free one. */
  idpPort?: number;
  log: WorldLogger;
  /** The broker's HTTP log (pino options); absent, the broker logs nothing. */
  brokerLogger?: BrokerOptions['logger'];
};

export type DevWorld = { name: string; server: WorldServer; address: string; tokensFile: string; seeded: number };

export type DevStack = {
  worlds: DevWorld[];
  /** The raw world publisher token (data/dev-token). */
  token: string;
  certFile: string;
  broker: RunningBroker;
  brokerConfigFile: string;
  mcpUrl: string;
  /** A broker access token for `devEmail`, valid for 12 hours. */
  mcpToken: string;
  /** The embedded development IdP (any email signs in); the broker's upstream issuer. */
  idp: DevIdp;
  /** The broker first (with `shutdown`), then the IdP and the worlds (within the same grace). */
  close(shutdown?: ShutdownOptions): Promise<void>;
};

/**
 * The local stack behind `npm start`: the seeded worlds, one TLS certificate
 * kept under data/tls (so clients can trust it across restarts) and a
 * development publisher token.
 */
export async function startDevStack(options: DevStackOptions): Promise<DevStack> {
  // Fail before anything listens when the development IdP's package is not installed.
  await loadOidcProvider();
  await mkdir(options.dataDir, { recursive: true });
  const tls = await devCertificate(join(options.dataDir, 'tls'), options.host);
  const token = await devPublisherToken(join(options.dataDir, 'dev-token'));
  const worlds: DevWorld[] = [];
  try {
    for (const [index, seed] of seedWorlds.entries()) {
      const dir = join(options.dataDir, 'worlds', seed.name);
      await mkdir(join(dir, 'content'), { recursive: true });
      const tokensFile = join(dir, 'tokens.toml');
      if (!existsSync(tokensFile)) await writeFile(tokensFile, devTokensToml(token), { mode: 0o600 });
      const server = await startWorldServer({
        root: join(dir, 'content'),
        tokensFile,
        name: seed.name,
        listen: { host: options.host, port: options.basePort + index },
        tls,
        log: options.log,
      });
      worlds.push({ name: seed.name, server, address: authority(options.host, server.port), tokensFile, seeded: 0 });
    }
    for (const world of worlds) world.seeded = await seedWorld(world, worlds, token);
  } catch (error) {
    await Promise.all(worlds.map((w) => w.server.close()));
    throw error;
  }
  const certFile = join(options.dataDir, 'tls', 'cert.pem');
  let broker: RunningBroker;
  let brokerConfigFile: string;
  let idp: DevIdp | undefined;
  try {
    const clientSecret = randomBytes(24).toString('base64url');
    const callback = `http://${options.host}:${options.brokerPort}/auth/callback`;
    idp = await startDevIdp({
      host: options.host,
      port: options.idpPort ?? options.brokerPort + 2,
      clients: [{ clientId: 'demarkus-broker-dev', clientSecret, redirectUris: [callback] }],
    });
    const { config, file } = await devBrokerConfig({
      dataDir: options.dataDir,
      host: options.host,
      port: options.brokerPort,
      caFile: certFile,
      worlds,
      idp: { issuer: idp.issuer, clientId: 'demarkus-broker-dev', clientSecret },
    });
    brokerConfigFile = file;
    broker = await startBroker(config, options.brokerLogger === undefined ? {} : { logger: options.brokerLogger });
  } catch (error) {
    await idp?.close();
    await Promise.all(worlds.map((w) => w.server.close()));
    throw error;
  }
  const devIdp = idp;
  const mcpToken = await mintBrokerToken({
    key: broker.trust.key,
    issuer: broker.trust.issuer,
    audience: broker.trust.resource,
    email: options.devEmail,
    ttlSeconds: 12 * 3600,
  });
  return {
    worlds,
    token,
    certFile,
    broker,
    brokerConfigFile,
    mcpUrl: broker.trust.resource,
    mcpToken,
    idp: devIdp,
    close: async (shutdown = {}) => {
      await broker.close(shutdown);
      await devIdp.close();
      await Promise.all(
        worlds.map((w) => w.server.close(shutdown.graceMs === undefined ? {} : { graceMs: shutdown.graceMs })),
      );
    },
  };
}

/**
 * The address clients use. Loopback listeners are named `localhost`, which the
 * dev certificate carries as a DNS name: quiche checks server names against DNS
 * SANs only, so an IP literal could not be verified with --ca.
 */
function authority(host: string, port: number): string {
  if (loopbackNames.includes(host)) return `localhost:${port}`;
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
}

async function devCertificate(dir: string, host: string): Promise<TlsKeyPair> {
  const certFile = join(dir, 'cert.pem');
  const keyFile = join(dir, 'key.pem');
  if (existsSync(certFile) && existsSync(keyFile)) {
    return { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') };
  }
  await mkdir(dir, { recursive: true });
  const pair = await generateDevCertificate({ hostNames: [host] });
  await writeFile(certFile, pair.cert);
  await writeFile(keyFile, pair.key, { mode: 0o600 });
  return pair;
}

/** Publishes the seed set through the world's own request pipeline, once (only into an empty world). */
async function seedWorld(world: DevWorld, all: DevWorld[], token: string): Promise<number> {
  if (world.server.world.context.catalog.size > 0) return 0;
  const seed = seedWorlds.find((s) => s.name === world.name)!;
  const documents = [...seed.documents, ...knowledgeSeeds(world.name)];
  if (world.name === 'root') {
    const addressOf = (name: string) => all.find((w) => w.name === name)?.address ?? name;
    documents.push({
      path: '/graph.md',
      metadata: { title: 'Document Graph', tags: 'graph', importance: '0.4', retention: '20' },
      body: seedGraphMarkdown(addressOf, new Date()),
    });
  }
  for (const doc of documents) {
    const bytes = encodeRequest({
      verb: 'PUBLISH',
      path: doc.path,
      metadata: { ...doc.metadata, auth: token, 'expected-version': '0' },
      body: Buffer.from(doc.body),
    });
    const response = await world.server.world.respond({ bytes });
    if (response.status !== 'created') {
      throw new Error(
        `seeding ${world.name}${doc.path} failed: ${response.status} ${Buffer.from(response.body).toString().trim()}`,
      );
    }
  }
  return documents.length;
}
