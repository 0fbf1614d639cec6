/**
 * The values matrix both chart suites render: each case is what an operator
 * would plausibly install, named for what it exercises.
 */
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** A fresh EC P-256 signing key (PKCS#8 PEM), as the broker config requires. */
export const signingKeyPem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const keyDir = mkdtempSync(join(tmpdir(), 'demarkus-key-'));
process.on('exit', () => rmSync(keyDir, { recursive: true, force: true }));
export const signingKeyFile = join(keyDir, 'signing-key.pem');
writeFileSync(signingKeyFile, signingKeyPem);

/** A second P-256 key, the one to rotate to (`oidc.nextBrokerSigningKey`, from its Secret). */
export const nextSigningKeyPem = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();

export type BrokerCase = {
  name: string;
  values: Record<string, unknown>;
  /** Inline signing key via --set-file (otherwise the case references a Secret). */
  inlineKey: boolean;
  /** What the broker process gets from secretKeyRefs, for loading the rendered config. */
  env?: Record<string, string>;
};

const minimal = { server: { publicURL: 'https://broker.example.com' }, worlds: [{ name: 'root' }] };

const manyWorlds = [
  { name: 'root', publicURL: 'mark://knowledge.example.com:6309', allow: { emails: ['admin@example.com'] } },
  ...Array.from({ length: 10 }, (_, i) => ({
    name: `team-${i}`,
    allow: { domains: ['example.com'], groups: [`team-${i}`] },
  })),
  { name: 'shared-a', namespace: 'shared', tokensSecret: 'shared-a-tokens' },
  {
    name: 'shared-b',
    namespace: 'shared',
    tokensSecret: 'b-tokens',
    internalAddress: 'shared-b.shared.svc.cluster.local:7000',
    serverName: 'shared-b.shared.svc',
    defaultToken: { paths: ['/docs/**', '/notes/**'] },
  },
];

export const brokerCases: BrokerCase[] = [
  { name: 'defaults', inlineKey: true, values: minimal },
  {
    name: 'ingress with TLS',
    inlineKey: true,
    values: {
      ...minimal,
      server: { publicURL: 'https://broker.example.com', mcp: { publicURL: 'https://knowledge.example.com' } },
      oidc: {
        issuer: 'https://accounts.google.com',
        clientID: 'client.apps.googleusercontent.com',
        clientSecret: 'inline-secret',
        redirectURL: 'https://broker.example.com/auth/callback',
        allowDomains: ['example.com'],
      },
      ingress: {
        enabled: true,
        host: 'broker.example.com',
        tls: { certManager: { enabled: true } },
        mcp: {
          host: 'knowledge.example.com',
          annotations: { 'nginx.ingress.kubernetes.io/proxy-read-timeout': '3600' },
          tls: { certManager: { enabled: true } },
        },
      },
    },
  },
  {
    name: 'existing secrets',
    inlineKey: false,
    env: { OIDC_CLIENT_SECRET: 'from-secret', BROKER_SIGNING_KEY: signingKeyPem },
    values: {
      ...minimal,
      oidc: {
        issuer: 'https://dex.example.com',
        clientID: 'demarkus',
        existingSecretRef: { name: 'oidc-client', key: 'client-secret' },
        existingSigningKeyRef: { name: 'jwks-signing-key' },
        redirectURL: 'https://broker.example.com/auth/callback',
      },
      server: {
        publicURL: 'https://broker.example.com',
        mcp: { tls: { existingSecretRef: { name: 'mcp-listener-tls' } } },
      },
      worldDialer: { caSecretRef: { name: 'world-ca' } },
      ingress: {
        enabled: true,
        host: 'broker.example.com',
        tls: { existingSecret: 'broker-tls' },
        mcp: { host: 'knowledge.example.com', tls: { existingSecret: 'knowledge-tls' } },
      },
    },
  },
  { name: 'many worlds', inlineKey: true, values: { ...minimal, worlds: manyWorlds } },
  {
    name: 'HA with autoscaling',
    inlineKey: true,
    values: {
      ...minimal,
      redis: {
        url: 'redis://redis-master.redis.svc.cluster.local:6379/0',
        username: 'demarkus',
        existingSecret: { name: 'redis-credentials', key: 'password' },
        keyPrefix: 'broker-a:',
      },
      autoscaling: {
        enabled: true,
        minReplicas: 2,
        maxReplicas: 6,
        targetCPUUtilizationPercentage: 65,
        targetMemoryUtilizationPercentage: 80,
      },
      podDisruptionBudget: { minAvailable: 1, maxUnavailable: '' },
      metrics: { serviceMonitor: { enabled: true, labels: { release: 'kube-prometheus-stack' } } },
      networkPolicy: {
        metricsFromNamespace: 'monitoring',
        httpsEgressCIDRs: ['10.0.0.1/32', '0.0.0.0/0'],
        redisEgress: { namespace: 'redis', podLabels: { 'app.kubernetes.io/name': 'redis' } },
      },
      ingress: { enabled: true, host: 'broker.example.com', mcp: { host: 'knowledge.example.com' } },
    },
  },
  {
    name: 'two replicas on Redis Sentinel',
    inlineKey: true,
    values: {
      ...minimal,
      replicaCount: 2,
      redis: {
        sentinel: { masterName: 'mymaster', nodes: ['redis-node-0.redis-headless.redis:26379', 'redis:26379'] },
        existingSecret: { name: 'redis', key: 'redis-password' },
      },
      networkPolicy: { redisEgress: { cidrs: ['10.20.0.0/16'] } },
    },
    env: { DEMARKUS_BROKER_REDIS_PASSWORD: 'from-the-secret' },
  },
  { name: 'discovery in all namespaces', inlineKey: true, values: { ...minimal, discovery: { enabled: true } } },
  {
    name: 'discovery in listed namespaces',
    inlineKey: true,
    values: {
      ...minimal,
      discovery: { enabled: true, namespaces: ['team-a', 'team-b', 'team-a'], maxWorlds: 750 },
      // A discovered world on the world chart's server.udpPort 7000.
      networkPolicy: { discoveredWorldPorts: [6309, 7000] },
    },
  },
  {
    name: 'crawl CronJob on',
    inlineKey: true,
    values: {
      ...minimal,
      worlds: [{ name: 'root' }, { name: 'hub' }],
      crawl: { enabled: true, schedule: '*/30 * * * *', hub: 'hub' },
    },
  },
  { name: 'crawl CronJob off', inlineKey: true, values: { ...minimal, crawl: { enabled: false } } },
  {
    // Every broker config key the chart passes through, each away from its default, so the
    // rendered config shows that it arrives (broker-chart.test.ts, "every broker setting").
    name: 'every broker setting',
    inlineKey: true,
    env: {
      OIDC_CLIENT_SECRET: 'from-the-secret',
      BROKER_NEXT_SIGNING_KEY: nextSigningKeyPem,
      DEMARKUS_BROKER_REDIS_PASSWORD: 'from-the-secret',
    },
    values: {
      worlds: [
        {
          name: 'root',
          namespace: 'knowledge',
          tokensSecret: 'root-tokens',
          publicURL: 'mark://knowledge.example.com:6309',
          internalAddress: 'root.knowledge.svc.cluster.local:6309',
          serverName: 'root.knowledge.svc',
          allow: { domains: ['example.com'], groups: ['writers'], emails: ['admin@example.com'] },
          defaultToken: { paths: ['/**'] },
        },
        // The hub (crawl.hub below) must be a configured world: the crawl publishes only to those.
        { name: 'knowledge-hub', namespace: 'knowledge' },
      ],
      webClients: [
        {
          clientID: 'library-web',
          clientSecretHash: 'a'.repeat(64),
          redirectURIs: ['https://library.example.com/auth/callback'],
          name: 'Library',
          bearer: 'id_token',
        },
      ],
      discovery: { enabled: true, namespaces: ['knowledge'], clusterDomain: 'cluster.example' },
      server: {
        publicURL: 'https://broker.example.com',
        allowedHosts: ['broker.example.com', 'knowledge.example.com:443'],
        allowedOrigins: ['https://broker.example.com', 'https://knowledge.example.com'],
        mcp: {
          publicURL: 'https://knowledge.example.com',
          tls: { existingSecretRef: { name: 'mcp-listener-tls' } },
          callsPerSubject: 8,
          callsPerSubjectShared: 2,
          queuedCallsPerSubject: 32,
        },
        management: { port: 9464 },
        shutdown: { drainDelay: '8s', timeout: '15s' },
      },
      oidc: {
        issuer: 'https://dex.example.com',
        clientID: 'demarkus',
        existingSecretRef: { name: 'oidc-client', key: 'client-secret' },
        redirectURL: 'https://broker.example.com/auth/callback',
        allowDomains: ['example.com'],
        existingNextSigningKeyRef: { name: 'broker-next-signing-key', key: 'next.pem' },
      },
      oauth: {
        registration: { disabled: true, maxClients: 200, unusedTtl: '30m' },
        clientMetadataDocuments: { disabled: true },
        maxRefreshTokenFamilies: 4000,
        maxRefreshTokenFamiliesPerUser: 10,
      },
      state: { maxPendingSignIns: 2000 },
      rateLimit: { userCode: { perMinute: 6, burst: 3 }, registration: { perMinute: 2, burst: 4 } },
      worldDialer: { caSecretRef: { name: 'world-ca' }, failureThreshold: 5, cooldown: '10s' },
      redis: {
        url: 'rediss://redis.redis.svc.cluster.local:6380/1',
        username: 'demarkus',
        existingSecret: { name: 'redis', key: 'redis-password' },
        caSecretRef: { name: 'redis-ca' },
        sentinel: {
          masterName: 'mymaster',
          nodes: ['redis-sentinel.redis:26379'],
          existingSecret: { name: 'redis-sentinel', key: 'sentinel-password' },
        },
      },
      metrics: { enabled: false },
      // The hub world: the crawl's target and the broker's seed, as the broker config key `hub`.
      crawl: { hub: 'knowledge-hub' },
    },
  },
  {
    name: 'sweeper off',
    inlineKey: true,
    values: {
      ...minimal,
      sweeper: { disabled: true },
      networkPolicy: { enabled: false },
      podDisruptionBudget: { enabled: false },
    },
  },
];

export type WorldCase = { name: string; release: string; namespace: string; values: Record<string, unknown> };

export const worldCases: WorldCase[] = [
  {
    name: 'defaults (generated dev certificate)',
    release: 'team-a',
    namespace: 'team-a',
    values: { fullnameOverride: 'team-a' },
  },
  {
    name: 'cert-manager TLS and a public LoadBalancer',
    release: 'root',
    namespace: 'root',
    values: {
      fullnameOverride: 'root',
      world: { publicURL: 'mark://knowledge.example.com:6309' },
      service: { type: 'LoadBalancer', loadBalancerIP: '203.0.113.10' },
      tls: { certManager: { enabled: true } },
      storage: { size: '20Gi', className: 'premium-rwo' },
    },
  },
  {
    name: 'existing TLS and tokens Secrets, no bootstrap',
    release: 'team-b',
    namespace: 'team-b',
    values: {
      fullnameOverride: 'team-b',
      tls: { existingSecret: 'team-b-cert' },
      tokens: { existingSecret: 'team-b-managed-tokens', bootstrap: { enabled: false } },
      discovery: { enabled: false },
    },
  },
  {
    name: 'admin token from a Secret, no raw values, network policy',
    release: 'ops',
    namespace: 'ops',
    values: {
      world: { name: 'ops' },
      tokens: {
        emitRawValues: false,
        admin: { existingSecretRef: { name: 'ops-admin-token', key: 'token' }, paths: ['/ops/**'] },
      },
      networkPolicy: { enabled: true },
      server: { readOnly: true, listenHost: '[::]' },
    },
  },
];
