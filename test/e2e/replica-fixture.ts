/**
 * The broker replicated as an operator runs it: two real broker processes
 * (`demarkus-broker broker`) with one configuration, sharing a real
 * redis-server (short-lived state, rate limits, MCP sessions) and durable
 * state in Kubernetes Secrets (a fake API server driven by the real
 * @kubernetes/client-node), behind a real haproxy that sends each request to
 * the next replica in turn, in front of a real QUIC world and the real
 * development IdP (oidc-provider). Every port is a free one found at start.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { generateSigningKeyPem, loadSigningKey } from '../../src/broker/auth/signing-key.ts';
import { mintBrokerToken } from '../../src/broker/auth/mint-broker-token.ts';
import type { DevIdp } from '../../src/dev/idp.ts';
import { binPath } from '../cli/cli-process.ts';
import { startFakeApiServer } from '../kubernetes/fake-api/server.ts';
import { redisServerBinary, startRedisServer, type RedisServer } from '../support/redis-server.ts';
import { startWorldFixture, testTls, type WorldFixture } from '../world/world-fixture.ts';
import { startBrokerIdp } from './signin-fixture.ts';
import { freePort, freePorts } from './stack-fixture.ts';

/** A document of world `root`, published before the brokers start. */
export const guidePath = '/docs/guide.md';
const guideBody = '# Guide\n\nHow the replicas share their state.\n';

export const haproxyBinary = process.env.HAPROXY ?? 'haproxy';

/** Why the replica tests cannot run here, or null: only a missing binary is a reason. */
export function missingBinaries(): string | null {
  const missing = [haproxyBinary, redisServerBinary].filter(
    (binary) => spawnSync(binary, ['-v'], { stdio: 'ignore' }).error !== undefined,
  );
  return missing.length === 0
    ? null
    : `needs ${missing.join(' and ')} on PATH (Debian packages haproxy, redis-server; .ci/run installs them)`;
}

export type Replica = {
  name: 'a' | 'b';
  /** The replica's issuer listener (sign-in, OAuth). */
  issuer: string;
  /** The replica's management listener (/healthz, /readyz, /metrics). */
  management: string;
  mcp: string;
  child: ChildProcess;
  stderr: () => string;
};

export type ReplicaStack = {
  /** The load balancer's issuer URL. */
  issuer: string;
  /** The load balancer's MCP resource URL (`.../mcp`). */
  resource: string;
  /** The same load balancer's frontend to replica `a` only, when asked for. */
  oneReplicaResource?: string;
  replicas: Record<'a' | 'b', Replica>;
  redis: RedisServer;
  idp: DevIdp;
  world: WorldFixture;
  /** A broker access token for `email`, minted with the replicas' signing key. */
  token(email: string): Promise<string>;
  /** POSTs a form to the issuer through the load balancer (or straight to one replica). */
  post(
    path: string,
    form: Record<string, string>,
    via?: Replica,
  ): Promise<{ status: number; json: Record<string, unknown>; headers: Headers; servedBy: string | null }>;
  kill(name: 'a' | 'b'): Promise<void>;
  close(): Promise<void>;
};

export type ReplicaStackOptions = {
  /** Adjusts the brokers' shared configuration document before they start. */
  brokerConfig?: (document: Record<string, any>) => void;
  /** Also a frontend in front of replica `a` alone (`oneReplicaResource`), for a 1-vs-2 comparison. */
  oneReplicaFrontend?: boolean;
};

export async function startReplicaStack(options: ReplicaStackOptions = {}): Promise<ReplicaStack> {
  const dir = await mkdtemp(join(tmpdir(), 'demarkus-replicas-'));
  const cleanups: Array<() => Promise<unknown>> = [async () => rm(dir, { recursive: true, force: true })];
  const closeAll = async () => {
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  };
  try {
    const redis = await startRedisServer();
    cleanups.push(() => redis.close());
    const api = await startFakeApiServer(['broker']);
    cleanups.push(() => api.close());
    const kubeconfig = join(dir, 'kubeconfig');
    await writeFile(kubeconfig, api.kubeConfig('broker', 'broker').exportConfig());

    const tls = await testTls();
    await writeFile(join(dir, 'ca.pem'), tls.cert);
    const world = await startWorldFixture();
    cleanups.push(() => world.close());
    const published = await world.call('PUBLISH', guidePath, { auth: world.tokens.writer! }, guideBody);
    if (published.status !== 'created') throw new Error(`cannot publish ${guidePath}: ${published.status}`);

    const lb = { issuer: await freePort(), mcp: await freePort() };
    const issuer = `http://127.0.0.1:${lb.issuer}`;
    const signingKey = generateSigningKeyPem();
    const { idp, oidc, signInServer } = await startBrokerIdp(issuer, { signingKey });
    cleanups.push(() => idp.close());

    const document: Record<string, any> = {
      server: {
        addr: '127.0.0.1:0',
        publicURL: issuer,
        brokerNamespace: 'broker',
        mcp: { addr: '127.0.0.1:0', publicURL: `http://127.0.0.1:${lb.mcp}` },
        ...signInServer,
      },
      oidc,
      state: { ephemeral: 'redis' },
      redis: { url: redis.url, keyPrefix: 'replicas:', commandTimeout: '500ms', connectTimeout: '1s' },
      storage: { backend: 'kubernetes' },
      worlds: [
        {
          name: 'root',
          namespace: 'root',
          tokensSecret: 'root-tokens',
          internalAddress: `localhost:${world.server.port}`,
          defaultToken: { paths: ['/**'] },
        },
      ],
      worldDialer: { caFile: join(dir, 'ca.pem') },
      rateLimit: { login: { perMinute: 60_000, burst: 10_000 }, userCode: { perMinute: 6, burst: 8 } },
      sweeper: { disabled: true },
    };
    // The one-replica frontend is another port of the same host: admit the name on any port.
    if (options.oneReplicaFrontend) document.server.allowedHosts = ['127.0.0.1'];
    options.brokerConfig?.(document);

    const start = async (name: 'a' | 'b'): Promise<Replica> => {
      const [issuerPort, mcpPort, managementPort] = await freePorts(3);
      const ports = { issuer: issuerPort as number, mcp: mcpPort as number, management: managementPort as number };
      const config = structuredClone(document);
      config.server.addr = `127.0.0.1:${ports.issuer}`;
      config.server.mcp.addr = `127.0.0.1:${ports.mcp}`;
      config.server.management = { addr: `127.0.0.1:${ports.management}` };
      const file = join(dir, `broker-${name}.yaml`);
      await writeFile(file, stringify(config));
      const replica = await startBrokerProcess(name, file, kubeconfig, ports);
      cleanups.push(() => stopProcess(replica.child));
      return replica;
    };
    const replicas = { a: await start('a'), b: await start('b') };

    const one = options.oneReplicaFrontend ? await freePort() : undefined;
    const haproxy = await startHaproxy(dir, { ...lb, ...(one === undefined ? {} : { one }) }, replicas);
    cleanups.push(() => stopProcess(haproxy));

    const key = loadSigningKey(signingKey);
    const resource = `http://127.0.0.1:${lb.mcp}/mcp`;
    return {
      issuer,
      resource,
      ...(one === undefined ? {} : { oneReplicaResource: `http://127.0.0.1:${one}/mcp` }),
      replicas,
      redis,
      idp,
      world,
      token: (email) =>
        mintBrokerToken({ key, issuer, audience: resource, email, hostedDomain: 'example.com', ttlSeconds: 900 }),
      async post(path, form, via) {
        const response = await fetch(`${via?.issuer ?? issuer}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams(form),
        });
        const text = await response.text();
        return {
          status: response.status,
          json: text.startsWith('{') ? (JSON.parse(text) as Record<string, unknown>) : {},
          headers: response.headers,
          servedBy: response.headers.get('x-served-by'),
        };
      },
      async kill(name) {
        const child = replicas[name].child;
        if (child.exitCode !== null || child.signalCode !== null) return;
        const gone = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGKILL');
        await gone;
      },
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}

/**
 * Starts `demarkus-broker broker` and waits until its management listener
 * answers `/healthz` (the "broker listening" line is at info, below the
 * warn level these processes log at).
 */
async function startBrokerProcess(
  name: 'a' | 'b',
  configFile: string,
  kubeconfig: string,
  ports: { issuer: number; mcp: number; management: number },
): Promise<Replica> {
  const child = spawn(process.execPath, [binPath, 'broker', '--config', configFile], {
    env: { ...process.env, KUBECONFIG: kubeconfig, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  // Keep only the tail: a long test must not grow this without bound.
  child.stderr!.on('data', (chunk) => (stderr = (stderr + chunk).slice(-20_000)));
  const management = `http://127.0.0.1:${ports.management}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`broker ${name} exited (${child.exitCode ?? child.signalCode}):\n${stderr.slice(-2000)}`);
    const healthy = await fetch(`${management}/healthz`).then(
      (response) => response.ok,
      () => false,
    );
    if (healthy)
      return {
        name,
        issuer: `http://127.0.0.1:${ports.issuer}`,
        management,
        mcp: `http://127.0.0.1:${ports.mcp}/mcp`,
        child,
        stderr: () => stderr,
      };
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`broker ${name} did not start:\n${stderr.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * haproxy, round robin per request (`http-server-close`: no server
 * connection outlives its request), naming the replica that answered in
 * `x-served-by`; a refused connection (a killed replica) is retried on the
 * other one.
 */
async function startHaproxy(
  dir: string,
  lb: { issuer: number; mcp: number; one?: number },
  replicas: Record<'a' | 'b', Replica>,
): Promise<ChildProcess> {
  const backend = (name: string, port: number, target: (replica: Replica) => string, only = Object.values(replicas)) =>
    [
      `frontend ${name}`,
      `  bind 127.0.0.1:${port}`,
      `  default_backend ${name}-replicas`,
      `backend ${name}-replicas`,
      '  balance roundrobin',
      '  http-response set-header x-served-by %s',
      ...only.map((replica) => `  server ${replica.name} ${new URL(target(replica)).host}`),
    ].join('\n');
  const config = [
    'global',
    '  maxconn 512',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 60s',
    '  timeout server 60s',
    '  option http-server-close',
    '  retries 3',
    '  retry-on conn-failure',
    '  option redispatch 1',
    backend('issuer', lb.issuer, (r) => r.issuer),
    backend('mcp', lb.mcp, (r) => r.mcp),
    ...(lb.one === undefined ? [] : [backend('one', lb.one, (r) => r.mcp, [replicas.a])]),
    '',
  ].join('\n');
  const file = join(dir, 'haproxy.cfg');
  await writeFile(file, config);
  const child = spawn(haproxyBinary, ['-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr!.on('data', (chunk) => (output = (output + chunk).slice(-5000)));
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`haproxy exited (${child.exitCode}): ${output}`);
    const ports = [lb.issuer, lb.mcp, ...(lb.one === undefined ? [] : [lb.one])];
    if ((await Promise.all(ports.map(canConnect))).every(Boolean)) return child;
    await new Promise((r) => setTimeout(r, 50));
  }
  child.kill('SIGKILL');
  throw new Error(`haproxy did not listen: ${output}`);
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 3000);
  await gone;
  clearTimeout(timer);
}
