/**
 * Render-time guards of both charts: each impossible value stops `helm
 * template` with a message naming the key, and every `fail` in the templates
 * is triggered by at least one case here.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { chartPath } from './helm.ts';
import { signingKeyFile } from './matrix.ts';
import { failMessage, template } from './render.ts';

type Guard = {
  chart: 'demarkus-broker' | 'demarkus-world';
  name: string;
  values: Record<string, unknown>;
  inlineKey?: boolean;
  message: string;
};

const base = { server: { publicURL: 'https://broker.example.com' }, worlds: [{ name: 'root' }] };
const broker = (name: string, values: Record<string, unknown>, message: string, inlineKey = true): Guard => ({
  chart: 'demarkus-broker',
  name,
  values: { ...base, ...values },
  inlineKey,
  message,
});
const world = (name: string, values: Record<string, unknown>, message: string): Guard => ({
  chart: 'demarkus-world',
  name,
  values: { fullnameOverride: 'team-a', ...values },
  message,
});

const guards: Guard[] = [
  broker(
    'no public URL',
    { server: { publicURL: '' } },
    "server.publicURL is required: the broker's external base URL, e.g. https://broker.example.com",
  ),
  broker(
    'a public URL without scheme',
    { server: { publicURL: 'broker.example.com' } },
    'server.publicURL "broker.example.com" must be an absolute http(s) URL',
  ),
  broker(
    'an issuer port out of range',
    { server: { publicURL: 'https://b.example.com', port: 0 } },
    'server.port 0 must be between 1 and 65535',
  ),
  broker(
    'the MCP listener on the issuer port',
    { server: { publicURL: 'https://b.example.com', mcp: { addr: ':8080' } } },
    'server.mcp.addr ":8080" and server.port 8080 are the same port; the MCP and issuer listeners need two',
  ),
  broker(
    'a management port out of range',
    { server: { publicURL: 'https://b.example.com', management: { port: 70000 } } },
    'server.management.port 70000 must be between 1 and 65535',
  ),
  broker(
    'the management listener on the MCP port',
    { server: { publicURL: 'https://b.example.com', management: { port: 8081 } } },
    'server.management.port 8081 must differ from server.port (8080) and the port of server.mcp.addr (8081): health and metrics have a listener of their own, which the Ingress never routes',
  ),
  broker(
    'an MCP address without port',
    { server: { publicURL: 'https://b.example.com', mcp: { addr: 'localhost' } } },
    'server.mcp.addr "localhost" must end in :<port> (as ":8081")',
  ),
  broker(
    'an MCP port out of range',
    { server: { publicURL: 'https://b.example.com', mcp: { addr: ':70000' } } },
    'server.mcp.addr port 70000 must be between 1 and 65535',
  ),
  broker(
    'both signing key forms',
    { oidc: { existingSigningKeyRef: { name: 'jwks' } } },
    'set oidc.brokerSigningKey or oidc.existingSigningKeyRef.name, not both',
  ),
  broker(
    'no signing key',
    {},
    'a signing key is required: set oidc.existingSigningKeyRef.name (a Secret holding an EC P-256 PEM) or oidc.brokerSigningKey',
    false,
  ),
  broker(
    'a signing key reference without key',
    { oidc: { existingSigningKeyRef: { name: 'jwks', key: '' } } },
    'oidc.existingSigningKeyRef.key is required when oidc.existingSigningKeyRef.name is set',
    false,
  ),
  broker(
    'both client secret forms',
    {
      oidc: {
        issuer: 'https://dex.example.com',
        clientID: 'c',
        clientSecret: 's',
        existingSecretRef: { name: 'oidc' },
      },
    },
    'set oidc.clientSecret or oidc.existingSecretRef.name, not both',
  ),
  broker(
    'a client secret reference without key',
    { oidc: { issuer: 'https://dex.example.com', clientID: 'c', existingSecretRef: { name: 'oidc', key: '' } } },
    'oidc.existingSecretRef.key is required when oidc.existingSecretRef.name is set',
  ),
  broker(
    'a client id without issuer',
    { oidc: { clientID: 'c' } },
    'oidc.issuer is required when oidc.clientID, a client secret or oidc.redirectURL is set',
  ),
  broker(
    'an issuer without client id',
    { oidc: { issuer: 'https://accounts.google.com' } },
    'oidc.clientID is required when oidc.issuer is set',
  ),
  broker(
    'a CA and skip-verify together',
    { worldDialer: { insecureSkipVerify: true, caSecretRef: { name: 'world-ca' } } },
    'worldDialer.caSecretRef and worldDialer.insecureSkipVerify contradict each other: verify with the CA, or not at all',
  ),
  broker(
    'no world and no discovery',
    { worlds: [] },
    'at least one world is required in worlds[] (or enable discovery.enabled)',
  ),
  broker('a world without name', { worlds: [{ namespace: 'x' }] }, 'worlds[0].name is required'),
  broker(
    'a world name that is not a DNS label',
    { worlds: [{ name: 'Team_A' }] },
    'worlds[0].name "Team_A" must be a DNS label (a-z, 0-9, "-", at most 63 characters): it is the mark:// authority and part of Secret names',
  ),
  broker('a duplicate world', { worlds: [{ name: 'root' }, { name: 'root' }] }, 'worlds[1].name "root" is a duplicate'),
  broker(
    'a write token without paths',
    { worlds: [{ name: 'root', defaultToken: { paths: [] } }] },
    'worlds[0].defaultToken.paths must list at least one path pattern (e.g. "/**")',
  ),
  broker(
    'an internal address without port',
    { worlds: [{ name: 'root', internalAddress: 'root.root.svc' }] },
    'worlds[0].internalAddress "root.root.svc" must be host:port',
  ),
  broker(
    'an ingress without host',
    { ingress: { enabled: true } },
    'ingress.host is required when ingress.enabled (the issuer host, e.g. broker.example.com)',
  ),
  broker(
    'one host for issuer and MCP',
    { ingress: { enabled: true, host: 'b.example.com', mcp: { host: 'b.example.com' } } },
    'ingress.mcp.host must differ from ingress.host ("b.example.com"): the issuer and the MCP gateway are two hosts',
  ),
  broker(
    'two TLS sources for the issuer host',
    { ingress: { enabled: true, host: 'b.example.com', tls: { existingSecret: 's', certManager: { enabled: true } } } },
    'ingress.tls: set existingSecret or certManager.enabled, not both',
  ),
  broker(
    'two TLS sources for the MCP host',
    {
      ingress: {
        enabled: true,
        host: 'b.example.com',
        mcp: { host: 'k.example.com', tls: { existingSecret: 's', certManager: { enabled: true } } },
      },
    },
    'ingress.mcp.tls: set existingSecret or certManager.enabled, not both',
  ),
  broker(
    'autoscaling minimum above maximum',
    { autoscaling: { enabled: true, minReplicas: 5, maxReplicas: 3 } },
    'autoscaling.minReplicas (5) must not exceed autoscaling.maxReplicas (3)',
  ),
  broker(
    'autoscaling with maxReplicas removed (null)',
    { autoscaling: { enabled: true, maxReplicas: null } },
    'autoscaling.maxReplicas is required when autoscaling.enabled: Kubernetes gives an HPA no ceiling of its own',
  ),
  broker(
    'autoscaling to zero',
    { autoscaling: { enabled: true, minReplicas: 0, maxReplicas: 3 } },
    'autoscaling.minReplicas must be at least 1',
  ),
  broker(
    'autoscaling without a target',
    { autoscaling: { enabled: true, targetCPUUtilizationPercentage: '' } },
    'autoscaling needs targetCPUUtilizationPercentage or targetMemoryUtilizationPercentage',
  ),
  broker(
    'both PDB bounds',
    { podDisruptionBudget: { minAvailable: 1, maxUnavailable: 1 }, replicaCount: 3 },
    'podDisruptionBudget: set minAvailable or maxUnavailable, not both',
  ),
  broker(
    'no PDB bound',
    { podDisruptionBudget: { minAvailable: '', maxUnavailable: '' } },
    'podDisruptionBudget: set minAvailable or maxUnavailable',
  ),
  broker(
    'a PDB that blocks every eviction',
    { podDisruptionBudget: { minAvailable: 1, maxUnavailable: '' } },
    'podDisruptionBudget.minAvailable (1) must be below the replica count (1), or no pod could ever be evicted and node drains would hang',
  ),
  broker(
    'a ServiceMonitor without metrics',
    { metrics: { enabled: false, serviceMonitor: { enabled: true } } },
    'metrics.serviceMonitor.enabled needs metrics.enabled',
  ),
  broker(
    'a ServiceMonitor the NetworkPolicy would keep out',
    { metrics: { serviceMonitor: { enabled: true } } },
    'metrics.serviceMonitor.enabled with networkPolicy.enabled needs networkPolicy.metricsFromNamespace (the namespace Prometheus runs in, e.g. monitoring): without it the NetworkPolicy drops every scrape',
  ),
  broker(
    'a crawl without schedule',
    { crawl: { enabled: true, schedule: '' } },
    'crawl.schedule is required when crawl.enabled (a cron expression)',
  ),
  broker(
    'a crawl hub that is not a configured world',
    { worlds: [{ name: 'team-a' }, { name: 'team-b' }] },
    'crawl.hub "root" is not among worlds[].name (team-a, team-b): the crawl publishes to the hub with the write token the broker holds for each world in worlds[], so every run would fail; add a world named "root" to worlds[], set crawl.hub to a configured world, or set crawl.enabled=false',
  ),
  broker(
    // Valid for the broker (docs/configuration.md), but discovered worlds are read-only and never crawled.
    'a discovery-only install with the crawl on',
    { worlds: [], discovery: { enabled: true } },
    'crawl.hub "root" is not among worlds[].name (none configured): the crawl publishes to the hub with the write token the broker holds for each world in worlds[], so every run would fail; add a world named "root" to worlds[], set crawl.hub to a configured world, or set crawl.enabled=false',
  ),

  broker(
    'two replicas without Redis',
    { replicaCount: 2 },
    'replicaCount 2 needs redis.url or redis.sentinel: device grants, authorization codes and rate limits must be shared by every replica, or a sign-in started on one pod fails on the next (docs/operations.md, "Scale the broker")',
  ),
  broker(
    'autoscaling without Redis',
    { autoscaling: { enabled: true } },
    'autoscaling.enabled needs redis.url or redis.sentinel: device grants, authorization codes and rate limits must be shared by every replica, or a sign-in started on one pod fails on the next (docs/operations.md, "Scale the broker")',
  ),
  broker(
    'a Redis URL with a password in it',
    { redis: { url: 'redis://:hunter2@redis:6379' } },
    'redis.url "redis://:hunter2@redis:6379" must be redis://host[:port][/db] or rediss://… without credentials (the password comes from redis.existingSecret)',
  ),
  broker(
    'a Redis URL with an unclosed IPv6 bracket',
    { redis: { url: 'redis://[fd00::1:6379' } },
    'redis.url "redis://[fd00::1:6379" must be redis://host[:port][/db] or rediss://… without credentials (the password comes from redis.existingSecret)',
  ),
  broker(
    'Sentinel without nodes',
    { redis: { sentinel: { masterName: 'mymaster' } } },
    'redis.sentinel.nodes must list at least one sentinel (host:port) when redis.sentinel.masterName is set',
  ),
  broker(
    'a Redis Secret without key',
    { redis: { url: 'redis://redis:6379', existingSecret: { name: 'redis', key: '' } } },
    'redis.existingSecret.key is required when redis.existingSecret.name is set',
  ),
  broker(
    'a sentinel password without sentinels',
    { redis: { url: 'redis://redis:6379', sentinel: { existingSecret: { name: 'redis-sentinel' } } } },
    "redis.sentinel.existingSecret is the sentinels' password: it needs redis.sentinel.masterName and nodes",
  ),
  broker(
    'a sentinel password Secret without key',
    {
      redis: {
        sentinel: {
          masterName: 'mymaster',
          nodes: ['redis:26379'],
          existingSecret: { name: 'redis-sentinel', key: '' },
        },
      },
    },
    'redis.sentinel.existingSecret.key is required when redis.sentinel.existingSecret.name is set',
  ),
  broker(
    'a cookie key both inline and by reference',
    {
      server: {
        publicURL: 'https://b.example.com',
        cookieKey: Buffer.alloc(32, 1).toString('base64'),
        existingCookieKeyRef: { name: 'cookie' },
      },
    },
    'set server.cookieKey or server.existingCookieKeyRef.name, not both',
  ),
  broker(
    'a cookie key reference without key',
    { server: { publicURL: 'https://b.example.com', existingCookieKeyRef: { name: 'cookie', key: '' } } },
    'server.existingCookieKeyRef.key is required when server.existingCookieKeyRef.name is set',
  ),
  broker(
    'a next signing key reference without key',
    { oidc: { existingNextSigningKeyRef: { name: 'next-key', key: '' } } },
    'oidc.existingNextSigningKeyRef.key is required when oidc.existingNextSigningKeyRef.name is set',
  ),
  world(
    'two replicas',
    { replicaCount: 2 },
    'replicaCount must be 1, not 2: a world is one writer over one ReadWriteOnce volume',
  ),
  world(
    'a world name that is not a DNS label',
    { world: { name: 'Team_A' } },
    'world.name "Team_A" must be a DNS label (a-z, 0-9, "-", at most 63 characters): it is the mark:// authority clients use',
  ),
  world('a port out of range', { server: { udpPort: 0 } }, 'server.udpPort 0 must be between 1 and 65535'),
  world(
    'two TLS sources',
    { tls: { existingSecret: 'cert', certManager: { enabled: true } } },
    'tls: set existingSecret or certManager.enabled, not both',
  ),
  world(
    'no tokens Secret at all',
    { tokens: { bootstrap: { enabled: false } } },
    'the world needs a tokens Secret: set tokens.existingSecret, or keep tokens.bootstrap.enabled',
  ),
  world(
    'an admin label with a space',
    { tokens: { admin: { label: 'ad min' } } },
    'tokens.admin.label "ad min" must be letters, digits, "_" and "-"',
  ),
  world(
    'an admin token without paths',
    { tokens: { admin: { paths: [] } } },
    'tokens.admin.paths must list at least one path pattern (e.g. "/**")',
  ),
  world(
    'a relative admin path',
    { tokens: { admin: { paths: ['docs/**'] } } },
    'tokens.admin.paths entry "docs/**" must start with "/"',
  ),
  world(
    'a read admin token',
    { tokens: { admin: { operations: ['publish', 'read'] } } },
    'tokens.admin.operations must not include "read": a read token makes every read require a token, and the broker reads without one',
  ),
  world(
    'a minted admin token kept nowhere',
    { tokens: { emitRawValues: false } },
    'tokens.emitRawValues: false needs tokens.admin.existingSecretRef: otherwise the admin token would be minted and kept nowhere',
  ),
  world(
    'a public URL that is not mark://',
    { world: { publicURL: 'https://team-a.example.com' } },
    'world.publicURL "https://team-a.example.com" must be a mark://host[:port] URL',
  ),
  world('no storage size', { storage: { size: '' } }, 'storage.size is required (e.g. 5Gi)'),
];

const outcomes = new Map<string, { code: number; message: string }>();

before(async () => {
  await Promise.all(
    guards.map(async (guard) => {
      const rendered = await template({
        chart: guard.chart,
        release: guard.chart,
        values: [guard.values],
        ...(guard.inlineKey ? { setFiles: { 'oidc.brokerSigningKey': signingKeyFile } } : {}),
      });
      outcomes.set(`${guard.chart}: ${guard.name}`, { code: rendered.code, message: failMessage(rendered.stderr) });
    }),
  );
});

describe('render-time guards (real helm)', () => {
  for (const guard of guards) {
    it(`${guard.chart} refuses ${guard.name}`, () => {
      const outcome = outcomes.get(`${guard.chart}: ${guard.name}`)!;
      assert.notEqual(outcome.code, 0);
      assert.equal(outcome.message, guard.message);
    });
  }

  it('renders each chart when the guarded values are fixed (the guards are not always on)', async () => {
    const good = await Promise.all([
      template({
        chart: 'demarkus-broker',
        release: 'demarkus-broker',
        values: [base],
        setFiles: { 'oidc.brokerSigningKey': signingKeyFile },
      }),
      template({ chart: 'demarkus-world', release: 'team-a', values: [{ fullnameOverride: 'team-a' }] }),
    ]);
    assert.deepEqual(
      good.map((rendered) => rendered.code),
      [0, 0],
      good.map((rendered) => rendered.stderr).join('\n'),
    );
  });

  it('renders a discovery-only install with the crawl off, and a crawl whose hub is among worlds[]', async () => {
    const ways = await Promise.all(
      [
        { worlds: [], discovery: { enabled: true }, crawl: { enabled: false } },
        { worlds: [{ name: 'team-a' }], crawl: { hub: 'team-a' } },
      ].map((values) =>
        template({
          chart: 'demarkus-broker',
          release: 'demarkus-broker',
          values: [{ server: base.server, ...values }],
          setFiles: { 'oidc.brokerSigningKey': signingKeyFile },
        }),
      ),
    );
    assert.deepEqual(
      ways.map((rendered) => [rendered.code, rendered.objects.filter((o) => o.kind === 'CronJob').length]),
      [
        [0, 0],
        [0, 1],
      ],
      ways.map((rendered) => rendered.stderr).join('\n'),
    );
  });

  it('has a case for every fail in the templates', () => {
    const messages = guards.map((guard) => guard.message);
    for (const chart of ['demarkus-broker', 'demarkus-world'] as const) {
      const dir = join(chartPath(chart), 'templates');
      for (const file of readdirSync(dir).filter((name) => name.endsWith('.tpl') || name.endsWith('.yaml'))) {
        const text = readFileSync(join(dir, file), 'utf8');
        for (const match of text.matchAll(/fail \(?(?:printf )?"((?:[^"\\]|\\.)*)"/g)) {
          const format = JSON.parse(`"${match[1]}"`) as string;
          const pattern = new RegExp(
            `^${format
              .split(/%[qvds]/)
              .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
              .join('.+')}$`,
          );
          assert.ok(
            messages.some((message) => pattern.test(message)),
            `${chart}/${file}: no guard case triggers: ${format}`,
          );
        }
      }
    }
  });
});
