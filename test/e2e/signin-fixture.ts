/**
 * The broker as an authorization server on loopback, in front of the real
 * development IdP (oidc-provider): what the sign-in end-to-end tests drive.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { startBroker, type RunningBroker } from '../../src/broker/broker.ts';
import { parseBrokerConfig } from '../../src/broker/config/index.ts';
import { generateSigningKeyPem } from '../../src/broker/auth/signing-key.ts';
import { startDevIdp, type DevIdp, type DevIdpClaims, type DevIdpClient } from '../../src/dev/idp.ts';
import { startRedisServer, type RedisServer } from '../support/redis-server.ts';
import { freePorts } from './stack-fixture.ts';
import type { UserAgent, Page } from './signin-user-agent.ts';

export const webClient = {
  clientId: 'library-web',
  secret: 'library-web-secret-value',
  redirectUri: 'https://library.example.test/oauth/callback',
};

export type SignInStack = {
  dir: string;
  idp: DevIdp;
  broker: RunningBroker;
  /** The issuer URL. */
  issuer: string;
  /** The MCP resource URL. */
  resource: string;
  post(
    path: string,
    form: Record<string, string>,
    headers?: Record<string, string>,
  ): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }>;
  /** Signs `email` in at the development IdP, starting from a broker page that leads there. */
  signInFrom(agent: UserAgent, page: Page, email: string): Promise<Page>;
  close(): Promise<void>;
};

/** Accounts with special claims at the test IdP. */
export function testClaims(email: string): DevIdpClaims {
  if (email.startsWith('unverified')) return { email_verified: false };
  return {};
}

/**
 * The development IdP with the broker registered as its client `demarkus-broker` (callback
 * `${issuer}/auth/callback`) beside `clients`, and the broker config that signs in through it:
 * the `oidc` section, and the `server` settings of browser and device sign-in on loopback
 * (cookies without Secure, a fresh cookie key, device-flow timings short enough for a test).
 * Shared by this fixture and the replica fixture (replica-fixture.ts).
 */
export async function startBrokerIdp(
  issuer: string,
  options: { clients?: DevIdpClient[]; claimsFor?: (email: string) => DevIdpClaims; signingKey?: string } = {},
): Promise<{ idp: DevIdp; oidc: Record<string, unknown>; signInServer: Record<string, unknown> }> {
  const idpSecret = randomBytes(16).toString('hex');
  const idp = await startDevIdp({
    clients: [
      { clientId: 'demarkus-broker', clientSecret: idpSecret, redirectUris: [`${issuer}/auth/callback`] },
      ...(options.clients ?? []),
    ],
    ...(options.claimsFor ? { claimsFor: options.claimsFor } : {}),
  });
  return {
    idp,
    oidc: {
      issuer: idp.issuer,
      clientID: 'demarkus-broker',
      clientSecret: idpSecret,
      brokerSigningKey: options.signingKey ?? generateSigningKeyPem(),
      allowDomains: ['example.com'],
    },
    signInServer: {
      insecureCookies: true,
      cookieKey: randomBytes(32).toString('base64'),
      devicePollInterval: '200ms',
      deviceCodeTTL: '2m',
    },
  };
}

export async function startSignInStack(
  options: {
    brokerConfig?: (document: Record<string, any>) => void;
    logLines?: string[];
    /** More clients at the development IdP, beside the broker's own. */
    idpClients?: DevIdpClient[];
    /** Runs after `brokerConfig`, before the broker starts (to start worlds the config names). */
    beforeBroker?: (document: Record<string, any>) => Promise<void>;
  } = {},
): Promise<SignInStack> {
  const dir = await mkdtemp(join(tmpdir(), 'demarkus-signin-'));
  const [issuerPort, mcpPort] = await freePorts(2);
  const issuer = `http://127.0.0.1:${issuerPort}`;
  const { idp, oidc, signInServer } = await startBrokerIdp(issuer, {
    ...(options.idpClients ? { clients: options.idpClients } : {}),
    claimsFor: testClaims,
  });
  await mkdir(join(dir, 'world'), { recursive: true });
  await writeFile(join(dir, 'world', 'tokens.toml'), '[tokens]\n');
  const document: Record<string, any> = {
    server: {
      addr: `127.0.0.1:${issuerPort}`,
      publicURL: issuer,
      mcp: { addr: `127.0.0.1:${mcpPort}`, publicURL: `http://127.0.0.1:${mcpPort}` },
      management: { addr: '127.0.0.1:0' },
      ...signInServer,
    },
    oidc,
    storage: { backend: 'file', dir: join(dir, 'state') },
    worlds: [
      {
        name: 'root',
        internalAddress: 'localhost:9',
        tokensFile: join(dir, 'world', 'tokens.toml'),
        defaultToken: { paths: ['/**'] },
      },
    ],
    webClients: [
      {
        clientID: webClient.clientId,
        clientSecretHash: createHash('sha256').update(webClient.secret).digest('hex'),
        redirectURIs: [webClient.redirectUri],
        name: 'Library',
      },
    ],
    oauth: { clientMetadataDocuments: { allowLoopback: true } },
    rateLimit: {
      login: { perMinute: 60_000, burst: 10_000 },
      registration: { perMinute: 60_000, burst: 10_000 },
      userCode: { perMinute: 6, burst: 8 },
    },
    sweeper: { disabled: true },
  };
  options.brokerConfig?.(document);
  let broker: RunningBroker;
  try {
    await options.beforeBroker?.(document);
    const logLines = options.logLines;
    const logger =
      logLines === undefined ? false : { level: 'info', stream: { write: (line: string) => void logLines.push(line) } };
    broker = await startBroker(parseBrokerConfig(stringify(document), {}), { logger });
  } catch (error) {
    await idp.close();
    throw error;
  }
  return {
    dir,
    idp,
    broker,
    issuer,
    resource: broker.trust.resource,
    async post(path, form, headers = {}) {
      const response = await fetch(`${issuer}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
        body: new URLSearchParams(form),
      });
      const text = await response.text();
      return {
        status: response.status,
        json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
        headers: response.headers,
      };
    },
    async signInFrom(agent, page, email) {
      if (!page.url.startsWith(idp.issuer))
        throw new Error(`expected the IdP login page, got ${page.url} (${page.status}): ${agent.trace.join(', ')}`);
      return agent.submit(page, { email });
    },
    async close() {
      await broker.close();
      await idp.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export type RedisSignInStack = {
  redis: RedisServer;
  stack: SignInStack;
  /** A client of its own to look at the keys the broker writes; it stays quiet while the server is stopped. */
  inspect: Redis;
  close(): Promise<void>;
};

/**
 * A sign-in stack with `state.ephemeral: redis` on a real redis-server of its
 * own, under `keyPrefix`; `state` adds keys to the config's `state` block.
 */
export async function startSignInStackOnRedis(options: {
  keyPrefix: string;
  commandTimeout: string;
  state?: Record<string, unknown>;
}): Promise<RedisSignInStack> {
  const redis = await startRedisServer();
  let stack: SignInStack;
  try {
    stack = await startSignInStack({
      brokerConfig: (document) => {
        document.state = { ephemeral: 'redis', ...options.state };
        document.redis = {
          url: redis.url,
          keyPrefix: options.keyPrefix,
          commandTimeout: options.commandTimeout,
          connectTimeout: '1s',
        };
      },
    });
  } catch (error) {
    await redis.close();
    throw error;
  }
  const inspect = new Redis({ port: redis.port, host: '127.0.0.1', lazyConnect: true, maxRetriesPerRequest: 0 });
  inspect.on('error', () => undefined);
  return {
    redis,
    stack,
    inspect,
    async close() {
      inspect.disconnect();
      await stack.close();
      await redis.close();
    },
  };
}

/** `Basic` credentials as RFC 6749 §2.3.1 spells them (form-urlencoded halves). */
export function basic(clientId: string, secret: string): string {
  const encode = (s: string) => encodeURIComponent(s).replace(/%20/g, '+');
  return `Basic ${Buffer.from(`${encode(clientId)}:${encode(secret)}`).toString('base64')}`;
}
