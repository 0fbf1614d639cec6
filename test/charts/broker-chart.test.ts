/**
 * charts/demarkus-broker rendered by the real helm over a matrix of values:
 * lint, every object valid against the Kubernetes API schemas (no unknown
 * fields), the config Secret loadable by the broker's own config loader, RBAC
 * equal to what the Kubernetes backends call, and what each case is for.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parse, stringify } from 'yaml';
import { z } from 'zod';
import { envOverrides, parseBrokerConfig, type BrokerConfig } from '../../src/broker/config/index.ts';
import { brokerConfigShape, defaultMaxDiscoveredWorlds } from '../../src/broker/config/schema.ts';
import { brokerCases, nextSigningKeyPem, signingKeyFile, type BrokerCase } from './matrix.ts';
import { difference, granted, needed } from './rbac.ts';
import { find, lint, one, template, type KubeObject, type Rendered } from './render.ts';
import { schemaProblems } from './schema.ts';
import { podLabels, policiesSelecting, selects } from './selectors.ts';

type Result = { rendered: Rendered; lint: { code: number; output: string } };

const results = new Map<string, Result>();

const request = (testCase: BrokerCase) => ({
  chart: 'demarkus-broker' as const,
  release: 'demarkus-broker',
  namespace: 'demarkus',
  values: [testCase.values],
  ...(testCase.inlineKey ? { setFiles: { 'oidc.brokerSigningKey': signingKeyFile } } : {}),
});

before(async () => {
  await Promise.all(
    brokerCases.map(async (testCase) => {
      const [rendered, linted] = await Promise.all([template(request(testCase)), lint(request(testCase))]);
      results.set(testCase.name, { rendered, lint: linted });
    }),
  );
});

const objectsOf = (name: string): KubeObject[] => {
  const result = results.get(name)!;
  assert.equal(result.rendered.code, 0, result.rendered.stderr);
  return result.rendered.objects;
};

function configText(testCase: BrokerCase): string {
  const secret = one(objectsOf(testCase.name), 'Secret', 'demarkus-broker-config');
  return Buffer.from((secret.data as Record<string, string>)['config.yaml']!, 'base64').toString('utf8');
}

function loadedConfig(testCase: BrokerCase): BrokerConfig {
  return parseBrokerConfig(configText(testCase), testCase.env ?? {});
}

const renderedConfig = (testCase: BrokerCase): unknown => parse(configText(testCase));

const podTemplateSpec = (workload: KubeObject): any => (workload.spec as any).template.spec;

const container = (objects: KubeObject[], kind = 'Deployment') => {
  const workload = one(objects, kind);
  const spec =
    kind === 'CronJob' ? (workload.spec as any).jobTemplate.spec.template.spec : (workload.spec as any).template.spec;
  return { pod: spec, main: spec.containers[0] };
};

describe('demarkus-broker chart over the values matrix (real helm)', () => {
  for (const testCase of brokerCases) {
    describe(testCase.name, () => {
      it('passes helm lint --strict', () => {
        const { lint: linted } = results.get(testCase.name)!;
        assert.equal(linted.code, 0, linted.output);
        assert.match(linted.output, /1 chart\(s\) linted, 0 chart\(s\) failed/);
      });

      it('renders only objects that are valid against the Kubernetes API schemas', async () => {
        const objects = objectsOf(testCase.name);
        assert.ok(objects.length >= 8);
        const problems = (await Promise.all(objects.map(schemaProblems))).flat();
        assert.deepEqual(problems, []);
        for (const object of objects) {
          assert.equal(
            object.metadata.labels?.['app.kubernetes.io/name'],
            'demarkus-broker',
            `${object.kind}/${object.metadata.name} is labelled`,
          );
          if (!object.kind.startsWith('Cluster'))
            assert.ok(object.metadata.namespace, `${object.kind}/${object.metadata.name} names its namespace`);
        }
      });

      it('renders a config.yaml the broker loads', () => {
        const config = loadedConfig(testCase);
        assert.equal(config.server.publicURL, 'https://broker.example.com');
        assert.equal(config.server.brokerNamespace, 'demarkus');
        assert.equal(config.storage.backend, 'kubernetes');
        assert.equal(config.server.addr, ':8080');
      });

      it('grants exactly the API calls the Kubernetes backends make, for the config it renders', () => {
        const objects = objectsOf(testCase.name);
        // The rendered config.yaml as written (every key used here is rendered explicitly).
        const config = renderedConfig(testCase) as any;
        const want = needed({
          brokerNamespace: config.server.brokerNamespace,
          worlds: config.worlds.map((world: any) => ({
            name: world.name,
            namespace: world.namespace,
            tokensSecret: world.tokensSecret,
          })),
          refreshTokensSecret: config.server.refreshTokensSecret,
          leaseName: config.sweeper.leaseName,
          sweeper: !config.sweeper.disabled,
          discovery: config.discovery?.enabled
            ? config.discovery.namespaces.length > 0
              ? config.discovery.namespaces
              : 'all'
            : null,
        });
        const have = granted(objects, { namespace: 'demarkus', name: 'demarkus-broker' });
        assert.deepEqual(
          { missing: difference(want, have), extra: difference(have, want) },
          { missing: [], extra: [] },
        );
      });

      it('runs the broker hardened: non-root 65532, read-only root, no privilege, probes on /healthz and /readyz of the management port', () => {
        const { pod, main } = container(objectsOf(testCase.name));
        assert.deepEqual(main.args, ['broker', '--config', '/etc/demarkus-broker/config.yaml']);
        assert.equal(pod.securityContext.runAsNonRoot, true);
        assert.equal(pod.securityContext.runAsUser, 65532);
        assert.equal(pod.securityContext.seccompProfile.type, 'RuntimeDefault');
        assert.equal(main.securityContext.readOnlyRootFilesystem, true);
        assert.equal(main.securityContext.allowPrivilegeEscalation, false);
        assert.deepEqual(main.securityContext.capabilities.drop, ['ALL']);
        assert.ok(main.resources.limits.memory && main.resources.requests.cpu);
        assert.deepEqual(
          [main.livenessProbe.httpGet.path, main.readinessProbe.httpGet.path, main.startupProbe.httpGet.path],
          ['/healthz', '/readyz', '/healthz'],
        );
        assert.deepEqual(
          [main.livenessProbe.httpGet.port, main.readinessProbe.httpGet.port, main.startupProbe.httpGet.port],
          ['management', 'management', 'management'],
        );
        assert.ok(
          pod.volumes.some((volume: any) => volume.name === 'tmp' && volume.emptyDir),
          '/tmp is an emptyDir',
        );
      });
    });
  }
});

describe('what each case renders', () => {
  it('defaults: one replica, a PDB that allows drains, a NetworkPolicy, no Ingress/HPA/ServiceMonitor', () => {
    const objects = objectsOf('defaults');
    assert.equal((one(objects, 'Deployment').spec as any).replicas, 1);
    assert.equal((one(objects, 'PodDisruptionBudget').spec as any).maxUnavailable, 1);
    const egress = (one(objects, 'NetworkPolicy', 'demarkus-broker').spec as any).egress;
    assert.deepEqual(
      egress.flatMap((rule: any) => rule.ports.map((port: any) => `${port.protocol}/${port.port}`)),
      ['UDP/53', 'TCP/53', 'TCP/443', 'TCP/6443', 'UDP/6309'],
    );
    for (const kind of ['Ingress', 'HorizontalPodAutoscaler', 'ServiceMonitor', 'ClusterRole'])
      assert.deepEqual(find(objects, kind), [], kind);
  });

  it('ingress with TLS: one Ingress per host, each with its cert-manager Certificate', () => {
    const objects = objectsOf('ingress with TLS');
    const issuer = one(objects, 'Ingress', 'demarkus-broker');
    const mcp = one(objects, 'Ingress', 'demarkus-broker-mcp');
    assert.deepEqual((issuer.spec as any).tls, [{ hosts: ['broker.example.com'], secretName: 'demarkus-broker-tls' }]);
    assert.deepEqual((mcp.spec as any).tls, [
      { hosts: ['knowledge.example.com'], secretName: 'demarkus-broker-mcp-tls' },
    ]);
    assert.equal((mcp.spec as any).rules[0].http.paths[0].backend.service.port.name, 'mcp');
    // The issuer host is public: it routes to the issuer listener, and nothing routes the management port.
    assert.equal((issuer.spec as any).rules[0].http.paths[0].backend.service.port.name, 'http');
    const servicePorts = (one(objects, 'Service').spec as any).ports;
    assert.deepEqual(
      servicePorts.map((port: any) => [port.name, port.port]),
      [
        ['http', 8080],
        ['mcp', 8081],
        ['management', 8090],
      ],
    );
    const routed = find(objects, 'Ingress').flatMap((ingress) =>
      (ingress.spec as any).rules.flatMap((rule: any) =>
        rule.http.paths.map((path: any) => path.backend.service.port.name),
      ),
    );
    assert.ok(!routed.includes('management'), `an Ingress routes ${routed}`);
    assert.equal(loadedConfig(brokerCases.find((c) => c.name === 'ingress with TLS')!).server.management.addr, ':8090');
    assert.equal(mcp.metadata.annotations?.['nginx.ingress.kubernetes.io/proxy-read-timeout'], '3600');
    assert.equal(issuer.metadata.annotations, undefined, "the MCP host's annotations stay on its own Ingress");
    assert.deepEqual(
      find(objects, 'Certificate').map((cert) => [(cert.spec as any).secretName, (cert.spec as any).dnsNames[0]]),
      [
        ['demarkus-broker-tls', 'broker.example.com'],
        ['demarkus-broker-mcp-tls', 'knowledge.example.com'],
      ],
    );
    const config = loadedConfig(brokerCases.find((c) => c.name === 'ingress with TLS')!);
    assert.equal(config.server.mcp.publicURL, 'https://knowledge.example.com');
    assert.equal(config.oidc.clientSecret, 'inline-secret');
  });

  it('existing secrets: the client secret and signing key come from secretKeyRefs and are blank in the config', () => {
    const objects = objectsOf('existing secrets');
    const { main, pod } = container(objects);
    const env = Object.fromEntries(
      main.env
        .filter((entry: any) => entry.valueFrom?.secretKeyRef)
        .map((entry: any) => [entry.name, entry.valueFrom.secretKeyRef]),
    );
    assert.deepEqual(env, {
      OIDC_CLIENT_SECRET: { name: 'oidc-client', key: 'client-secret' },
      BROKER_SIGNING_KEY: { name: 'jwks-signing-key', key: 'signing-key.pem' },
    });
    const secret = one(objects, 'Secret', 'demarkus-broker-config');
    const text = Buffer.from((secret.data as Record<string, string>)['config.yaml']!, 'base64').toString('utf8');
    assert.doesNotMatch(text, /BEGIN PRIVATE KEY/);
    assert.match(text, /caFile: \/etc\/demarkus-broker\/world-ca\/ca\.crt/);
    assert.deepEqual(pod.volumes.map((volume: any) => volume.name).sort(), ['config', 'mcp-tls', 'tmp', 'world-ca']);
    assert.deepEqual(find(objects, 'Certificate'), []);
    assert.deepEqual(
      find(objects, 'Ingress').map((ingress) => (ingress.spec as any).tls[0].secretName),
      ['broker-tls', 'knowledge-tls'],
    );
  });

  it('many worlds: a Role per world namespace for its one tokens Secret, and the extra world port in egress', () => {
    const objects = objectsOf('many worlds');
    const worldRoles = find(objects, 'Role').filter((role) => role.metadata.name.startsWith('demarkus-broker-world-'));
    assert.equal(worldRoles.length, 13);
    assert.deepEqual(
      worldRoles
        .filter((role) => role.metadata.namespace === 'shared')
        .map((role) => (role.rules as any)[0].resourceNames)
        .sort(),
      [['b-tokens'], ['shared-a-tokens']],
    );
    const ports = (one(objects, 'NetworkPolicy', 'demarkus-broker').spec as any).egress
      .at(-1)
      .ports.map((port: any) => port.port);
    assert.deepEqual(ports.sort(), [6309, 7000]);
    const config = loadedConfig(brokerCases.find((c) => c.name === 'many worlds')!);
    assert.equal(config.worlds.length, 13);
    assert.deepEqual(config.worlds.find((world) => world.name === 'shared-b')?.defaultToken.paths, [
      '/docs/**',
      '/notes/**',
    ]);
  });

  it('HA with autoscaling: an HPA owns the replica count, the PDB keeps one pod, metrics are scraped', () => {
    const objects = objectsOf('HA with autoscaling');
    assert.equal((one(objects, 'Deployment').spec as any).replicas, undefined);
    const hpa = one(objects, 'HorizontalPodAutoscaler').spec as any;
    assert.deepEqual([hpa.minReplicas, hpa.maxReplicas, hpa.metrics.length], [2, 6, 2]);
    assert.equal((one(objects, 'PodDisruptionBudget').spec as any).minAvailable, 1);
    const monitor = one(objects, 'ServiceMonitor');
    assert.equal(monitor.metadata.labels?.release, 'kube-prometheus-stack');
    assert.deepEqual((monitor.spec as any).endpoints[0].path, '/metrics');
    assert.deepEqual((monitor.spec as any).endpoints[0].port, 'management');
    const ingress = (one(objects, 'NetworkPolicy', 'demarkus-broker').spec as any).ingress;
    assert.equal(ingress[1].from[0].namespaceSelector.matchLabels['kubernetes.io/metadata.name'], 'monitoring');
    // Prometheus reaches the management listener only; the ingress controller never does.
    assert.deepEqual(ingress[1].ports, [{ protocol: 'TCP', port: 8090 }]);
    assert.deepEqual(
      ingress[0].ports.map((port: any) => port.port),
      [8080, 8081],
    );
    const spread = container(objects).pod.topologySpreadConstraints;
    assert.deepEqual(
      spread.map((constraint: any) => constraint.labelSelector.matchLabels['app.kubernetes.io/instance']),
      ['demarkus-broker', 'demarkus-broker'],
    );
  });

  it('Redis: shared state in the config, the password from the Secret as env, egress to Redis only', () => {
    const haCase = brokerCases.find((testCase) => testCase.name === 'HA with autoscaling')!;
    const config = loadedConfig({ ...haCase, env: { DEMARKUS_BROKER_REDIS_PASSWORD: 'from-the-secret' } });
    assert.equal(config.state.ephemeral, 'redis');
    assert.equal(config.redis?.url, 'redis://redis-master.redis.svc.cluster.local:6379/0');
    assert.equal(config.redis?.username, 'demarkus');
    assert.equal(config.redis?.keyPrefix, 'broker-a:');
    assert.equal(config.redis?.password, 'from-the-secret');
    assert.doesNotMatch(configText(haCase), /password/i, 'no password in the config Secret');
    const objects = objectsOf('HA with autoscaling');
    const passwordEnv = container(objects).main.env.find(
      (entry: any) => entry.name === 'DEMARKUS_BROKER_REDIS_PASSWORD',
    );
    assert.deepEqual(passwordEnv.valueFrom.secretKeyRef, { name: 'redis-credentials', key: 'password' });
    const egress = (one(objects, 'NetworkPolicy', 'demarkus-broker').spec as any).egress;
    const toRedis = egress.find((rule: any) => rule.ports.some((port: any) => port.port === 6379));
    assert.deepEqual(toRedis.ports, [{ protocol: 'TCP', port: 6379 }]);
    assert.deepEqual(toRedis.to, [
      {
        namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'redis' } },
        podSelector: { matchLabels: { 'app.kubernetes.io/name': 'redis' } },
      },
    ]);

    const sentinelCase = brokerCases.find((testCase) => testCase.name === 'two replicas on Redis Sentinel')!;
    const viaSentinel = loadedConfig(sentinelCase);
    assert.equal(viaSentinel.state.ephemeral, 'redis');
    assert.deepEqual(viaSentinel.redis?.sentinel, {
      masterName: 'mymaster',
      nodes: ['redis-node-0.redis-headless.redis:26379', 'redis:26379'],
    });
    const sentinelObjects = objectsOf('two replicas on Redis Sentinel');
    assert.equal((one(sentinelObjects, 'Deployment').spec as any).replicas, 2);
    const sentinelEgress = (one(sentinelObjects, 'NetworkPolicy', 'demarkus-broker').spec as any).egress.find(
      (rule: any) => rule.ports.some((port: any) => port.port === 26379),
    );
    assert.deepEqual(sentinelEgress.to, [{ ipBlock: { cidr: '10.20.0.0/16' } }]);
  });

  it('Redis at an IPv6 address: the URL the broker accepts renders, and egress opens its port (6379 when it names none)', async () => {
    const defaults = brokerCases[0]!;
    for (const [url, port] of [
      ['redis://[fd00::1]:6380/0', 6380],
      ['rediss://[fd00::1]', 6379],
    ] as const) {
      const rendered = await template(request({ ...defaults, values: { ...defaults.values, redis: { url } } }));
      assert.equal(rendered.code, 0, rendered.stderr);
      const secret = one(rendered.objects, 'Secret', 'demarkus-broker-config');
      const text = Buffer.from((secret.data as Record<string, string>)['config.yaml']!, 'base64').toString('utf8');
      assert.equal(parseBrokerConfig(text, {}).redis?.url, url);
      const egress = (one(rendered.objects, 'NetworkPolicy', 'demarkus-broker').spec as any).egress;
      // Every TCP rule but DNS (53) and the API server and IdP (443, 6443) is the Redis one.
      const toRedis = egress.filter((rule: any) =>
        rule.ports.some((p: any) => p.protocol === 'TCP' && ![53, 443, 6443].includes(p.port)),
      );
      assert.deepEqual(
        toRedis.map((rule: any) => rule.ports),
        [[{ protocol: 'TCP', port }]],
        url,
      );
    }
  });

  it('defaults: no Redis, no state section, no Redis egress', () => {
    const minimalCase = brokerCases[0]!;
    assert.equal(loadedConfig(minimalCase).state.ephemeral, 'memory');
    const egress = (one(objectsOf(minimalCase.name), 'NetworkPolicy', 'demarkus-broker').spec as any).egress;
    assert.ok(!egress.some((rule: any) => rule.ports.some((port: any) => port.port === 6379)));
  });

  it('discovery: a ClusterRole for all namespaces, or a Role in each listed namespace', () => {
    const all = objectsOf('discovery in all namespaces');
    assert.deepEqual((one(all, 'ClusterRole').rules as any)[0], {
      apiGroups: [''],
      resources: ['services'],
      verbs: ['list', 'watch'],
    });
    const listed = objectsOf('discovery in listed namespaces');
    assert.deepEqual(find(listed, 'ClusterRole'), []);
    assert.deepEqual(
      find(listed, 'Role', 'demarkus-broker-discovery').map((role) => role.metadata.namespace),
      ['team-a', 'team-b'],
    );
  });

  it('discovery: renders maxWorlds as values.yaml or the user gives it', () => {
    assert.equal(
      (renderedConfig(brokerCases.find((c) => c.name === 'discovery in all namespaces')!) as any).discovery.maxWorlds,
      500,
    );
    assert.equal(
      (renderedConfig(brokerCases.find((c) => c.name === 'discovery in listed namespaces')!) as any).discovery
        .maxWorlds,
      750,
    );
  });

  it("counts removed from values (null) render as not set, so the broker's own defaults apply", async () => {
    // Every count _config.tpl renders; `int` alone turned a removed one into 0, which `count` keys refuse.
    const counts = [
      'server.mcp.firstMintMaxAttempts',
      'server.mcp.callsPerSubject',
      'server.mcp.callsPerSubjectShared',
      'server.mcp.queuedCallsPerSubject',
      'oauth.registration.maxClients',
      'oauth.maxRefreshTokenFamilies',
      'oauth.maxRefreshTokenFamiliesPerUser',
      'state.maxPendingSignIns',
      'worldDialer.failureThreshold',
      'discovery.maxWorlds',
    ];
    const at = (tree: any, path: string): unknown => path.split('.').reduce((node, key) => node?.[key], tree);
    const values = structuredClone(brokerCases.find((c) => c.name === 'discovery in all namespaces')!.values) as any;
    for (const path of counts) {
      const keys = path.split('.');
      const parent = keys.slice(0, -1).reduce((node, key) => (node[key] ??= {}), values);
      parent[keys.at(-1)!] = null;
    }
    const rendered = await template(request({ name: 'counts removed', inlineKey: true, values }));
    assert.equal(rendered.code, 0, rendered.stderr);
    const secret = one(rendered.objects, 'Secret', 'demarkus-broker-config');
    const text = Buffer.from((secret.data as Record<string, string>)['config.yaml']!, 'base64').toString('utf8');
    const loaded = parseBrokerConfig(text, {});
    // What the broker makes of the same config.yaml without these keys at all: its own defaults.
    const withoutCounts = parse(text) as any;
    for (const path of counts) {
      const keys = path.split('.');
      delete (at(withoutCounts, keys.slice(0, -1).join('.')) as Record<string, unknown>)[keys.at(-1)!];
    }
    const defaults = parseBrokerConfig(stringify(withoutCounts), {});
    for (const path of counts) {
      assert.equal(at(parse(text), path) ?? null, null, `${path} rendered as a number`);
      assert.equal(at(loaded, path), at(defaults, path), path);
    }
    assert.equal(loaded.discovery.maxWorlds, defaultMaxDiscoveredWorlds);
  });

  it('replica counts removed from values (null) are what Kubernetes leaves unset: one replica, an HPA floor of 1', async () => {
    const defaults = brokerCases.find((c) => c.name === 'defaults')!;
    const removed = await template(request({ ...defaults, values: { ...defaults.values, replicaCount: null } }));
    assert.equal(removed.code, 0, removed.stderr);
    const deployment = one(removed.objects, 'Deployment').spec as any;
    // `int` of a removed count was 0: `replicas: null` with maxUnavailable 1, so a rollout took the one pod down.
    assert.deepEqual([deployment.replicas, deployment.strategy.rollingUpdate.maxUnavailable], [1, 0]);
    const ha = brokerCases.find((c) => c.name === 'HA with autoscaling')!;
    const haValues = ha.values as { autoscaling: Record<string, unknown> };
    // With a floor of 1 the HA case's minAvailable: 1 is refused (its own guard), so the budget is maxUnavailable.
    const noFloor = await template(
      request({
        ...ha,
        values: {
          ...ha.values,
          autoscaling: { ...haValues.autoscaling, minReplicas: null },
          podDisruptionBudget: { enabled: true, minAvailable: '', maxUnavailable: 1 },
        },
      }),
    );
    assert.equal(noFloor.code, 0, noFloor.stderr);
    assert.equal((one(noFloor.objects, 'HorizontalPodAutoscaler').spec as any).minReplicas, 1);
    // A removed maxReplicas (Kubernetes has no default) is refused: test/charts/guards.test.ts.
  });

  it("discovery: UDP egress to the discovered worlds' ports (networkPolicy.discoveredWorldPorts), for the broker only", async () => {
    const worldPorts = (objects: KubeObject[], policy: string) =>
      (one(objects, 'NetworkPolicy', policy).spec as any).egress
        .at(-1)
        .ports.map((port: any) => `${port.protocol}/${port.port}`)
        .sort();
    assert.deepEqual(worldPorts(objectsOf('discovery in all namespaces'), 'demarkus-broker'), ['UDP/6309']);
    const listed = objectsOf('discovery in listed namespaces');
    // The broker dials a discovered world on its Service's UDP port (src/broker/kubernetes/service-world.ts).
    assert.deepEqual(worldPorts(listed, 'demarkus-broker'), ['UDP/6309', 'UDP/7000']);
    // The crawl never dials a discovered world (src/cli/crawl-command.ts runs no discovery).
    assert.deepEqual(worldPorts(listed, 'demarkus-broker-crawl'), ['UDP/6309']);
    // Without discovery the list opens nothing.
    const off = await template(
      request({
        ...brokerCases[0]!,
        values: { ...brokerCases[0]!.values, networkPolicy: { discoveredWorldPorts: [7000] } },
      }),
    );
    assert.equal(off.code, 0, off.stderr);
    assert.deepEqual(worldPorts(off.objects, 'demarkus-broker'), ['UDP/6309']);
  });

  it("crawl on by default: hourly against the root hub, as the broker's ServiceAccount", () => {
    const objects = objectsOf('defaults');
    const cron = one(objects, 'CronJob');
    assert.equal((cron.spec as any).schedule, '17 * * * *');
    assert.equal((cron.spec as any).concurrencyPolicy, 'Forbid');
    const pod = (cron.spec as any).jobTemplate.spec.template;
    const { main } = container(objects, 'CronJob');
    // No --hub: the crawl publishes to the config's hub, the one the broker seeds from.
    assert.deepEqual(main.args, ['crawl', '--config', '/etc/demarkus-broker/config.yaml']);
    assert.equal(loadedConfig(brokerCases[0]!).hub, 'root');
    assert.equal(main.securityContext.readOnlyRootFilesystem, true);
    const deployment = (one(objects, 'Deployment').spec as any).template.spec;
    assert.equal(pod.spec.serviceAccountName, deployment.serviceAccountName, 'the RBAC tests cover its calls');
  });

  for (const caseName of ['defaults', 'HA with autoscaling']) {
    it(`${caseName}: the PodDisruptionBudget, Service, HPA and spreading count the serving pods, never a crawl pod`, () => {
      const objects = objectsOf(caseName);
      const deployment = one(objects, 'Deployment');
      const serving = podLabels(deployment);
      const crawl = podLabels(one(objects, 'CronJob'));
      // A finished crawl pod kept by the history limits of an earlier chart version, labelled as it was then.
      const earlierCrawl = {
        'app.kubernetes.io/name': 'demarkus-broker',
        'app.kubernetes.io/instance': 'demarkus-broker',
        'app.kubernetes.io/component': 'crawl',
      };
      // A Job has no scale subresource: one selected pod fails the budget (disruptionsAllowed 0) and blocks drains.
      const budget = (one(objects, 'PodDisruptionBudget').spec as any).selector;
      assert.equal(selects(budget, serving), true, 'the budget covers the broker pods');
      assert.equal(selects(budget, crawl), false, 'nor a crawl pod of this version');
      assert.equal(selects(budget, earlierCrawl), false, 'nor one left by an earlier version');
      const service = { matchLabels: (one(objects, 'Service').spec as any).selector };
      assert.equal(selects(service, serving), true);
      assert.equal(selects(service, crawl) || selects(service, earlierCrawl), false, 'no traffic to a crawl pod');
      // The HPA averages over every pod the Deployment's (immutable) selector matches, owner or not.
      assert.equal(selects((deployment.spec as any).selector, serving), true);
      assert.equal(selects((deployment.spec as any).selector, crawl), false, 'the HPA does not count the crawl');
      for (const constraint of podTemplateSpec(deployment).topologySpreadConstraints) {
        assert.equal(selects(constraint.labelSelector, serving), true);
        assert.equal(selects(constraint.labelSelector, crawl), false, 'spreading ignores the crawl');
      }
    });
  }

  it('crawl network access: its own NetworkPolicy, the egress the crawl calls (DNS, API server, worlds), no ingress', () => {
    for (const caseName of ['defaults', 'many worlds', 'HA with autoscaling']) {
      const objects = objectsOf(caseName);
      const crawl = podLabels(one(objects, 'CronJob'));
      const serving = podLabels(one(objects, 'Deployment'));
      const [policy, ...others] = policiesSelecting(objects, crawl);
      assert.deepEqual(others, [], `${caseName}: one policy for the crawl pod`);
      const spec = policy!.spec as any;
      assert.deepEqual(spec.policyTypes, ['Ingress', 'Egress']);
      assert.equal(spec.ingress, undefined, `${caseName}: nothing may connect to a crawl pod`);
      assert.equal(selects(spec.podSelector, serving), false, `${caseName}: the broker keeps its own policy`);
      // The crawl calls the API server (write tokens, discovery) and the worlds as the broker does; Redis it never opens.
      const brokerEgress = (policiesSelecting(objects, serving)[0]!.spec as any).egress as any[];
      const usesRedis = (rule: any) => rule.ports.some((port: any) => port.port === 6379);
      assert.deepEqual(
        spec.egress,
        brokerEgress.filter((rule) => !usesRedis(rule)),
        caseName,
      );
    }
  });

  it("crawl CronJob settings: schedule and hub from values, the broker's hardening, and off when disabled", () => {
    const crawlOn = brokerCases.find((testCase) => testCase.name === 'crawl CronJob on')!;
    const objects = objectsOf(crawlOn.name);
    assert.equal((one(objects, 'CronJob').spec as any).schedule, '*/30 * * * *');
    // crawl.hub reaches the crawl and the broker as the one config key they both read, so they cannot disagree.
    assert.deepEqual(container(objects, 'CronJob').main.args, [
      'crawl',
      '--config',
      '/etc/demarkus-broker/config.yaml',
    ]);
    for (const kind of ['Deployment', 'CronJob'])
      assert.ok(
        container(objects, kind).main.volumeMounts.some((m: any) => m.mountPath === '/etc/demarkus-broker/config.yaml'),
        `${kind} mounts the config`,
      );
    assert.equal(loadedConfig(crawlOn).hub, 'hub');
    assert.deepEqual(find(objectsOf('crawl CronJob off'), 'CronJob'), []);
  });

  it("keeps the cookie key identical in the config and in the Secret's cookie-key, and the checksum in step", () => {
    const objects = objectsOf('defaults');
    const data = one(objects, 'Secret', 'demarkus-broker-config').data as Record<string, string>;
    const cookie = Buffer.from(data['cookie-key']!, 'base64').toString();
    assert.ok(Buffer.from(cookie, 'base64').length >= 16);
    assert.match(
      Buffer.from(data['config.yaml']!, 'base64').toString(),
      new RegExp(`cookieKey: "${cookie.replace(/[+/=]/g, '\\$&')}"`),
    );
  });
});

describe('the cookie key under helm template (GitOps: no lookup of the stored key)', () => {
  const render = (values: Record<string, unknown>) =>
    template({
      chart: 'demarkus-broker',
      release: 'demarkus-broker',
      namespace: 'demarkus',
      values: [values],
      setFiles: { 'oidc.brokerSigningKey': signingKeyFile },
    });
  const minimal = brokerCases[0]!.values;
  const reference = { name: 'broker-cookie-key', key: 'key' };
  const withReference = { ...minimal, server: { ...(minimal.server as object), existingCookieKeyRef: reference } };

  it('renders the same objects twice with server.existingCookieKeyRef, the key coming from that Secret', async () => {
    const [first, second] = await Promise.all([render(withReference), render(withReference)]);
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(second.objects, first.objects, 'Argo CD sees no change, so the broker does not restart');
    const config = one(first.objects, 'Secret', 'demarkus-broker-config').data as Record<string, string>;
    assert.deepEqual(Object.keys(config), ['config.yaml'], 'no generated cookie-key beside the config');
    assert.doesNotMatch(Buffer.from(config['config.yaml']!, 'base64').toString(), /cookieKey/);
    for (const kind of ['Deployment', 'CronJob']) {
      const env = container(first.objects, kind).main.env.find(
        (entry: any) => entry.name === 'DEMARKUS_BROKER_COOKIE_KEY',
      );
      assert.deepEqual(env?.valueFrom.secretKeyRef, reference, kind);
    }
  });

  it('renders the same objects twice with server.cookieKey, and a new key each time with neither', async () => {
    const fixed = {
      ...minimal,
      server: { ...(minimal.server as object), cookieKey: Buffer.alloc(32, 1).toString('base64') },
    };
    const [first, second, unset, unsetAgain] = await Promise.all([
      render(fixed),
      render(fixed),
      render(minimal),
      render(minimal),
    ]);
    assert.deepEqual(second.objects, first.objects);
    const cookieKey = (rendered: Rendered) =>
      (one(rendered.objects, 'Secret', 'demarkus-broker-config').data as Record<string, string>)['cookie-key'];
    assert.notEqual(cookieKey(unset), cookieKey(unsetAgain), 'why GitOps must set one of the two (docs/operations.md)');
  });
});

/**
 * Leaf key paths of the broker's config schema (`worlds[].name` for a key of
 * every list entry), read from its JSON Schema so no list here can drift.
 */
function configSchemaLeaves(): Set<string> {
  type Node = { type?: string; anyOf?: Node[]; properties?: Record<string, Node>; items?: Node };
  const leaves = new Set<string>();
  const walk = (node: Node, path: string): void => {
    if (node.anyOf) for (const branch of node.anyOf) walk(branch, path);
    else if (node.type === 'object' && node.properties)
      for (const [key, child] of Object.entries(node.properties)) walk(child, path ? `${path}.${key}` : key);
    else if (node.type === 'array' && node.items?.type === 'object') walk(node.items, `${path}[]`);
    else leaves.add(path);
  };
  walk(z.toJSONSchema(brokerConfigShape, { io: 'input', unrepresentable: 'any' }) as Node, '');
  return leaves;
}

/** Leaf key paths present in a rendered config document, in the same notation. */
function documentLeaves(value: unknown, path = '', leaves = new Set<string>()): Set<string> {
  const isObject = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (isObject(value))
    for (const [key, child] of Object.entries(value)) documentLeaves(child, path ? `${path}.${key}` : key, leaves);
  else if (Array.isArray(value) && value.length > 0 && value.every(isObject))
    for (const entry of value) documentLeaves(entry, `${path}[]`, leaves);
  else leaves.add(path);
  return leaves;
}

/** Broker config keys a Helm install does not set, each for a reason. */
const notThroughTheChart: Record<string, string> = {
  'storage.dir': 'file storage only; the chart always runs storage.backend kubernetes',
  'worlds[].tokensFile': 'file storage only; on Kubernetes the broker edits the tokensSecret',
  'redis.passwordFile':
    'the chart passes the password from redis.existingSecret as DEMARKUS_BROKER_REDIS_PASSWORD instead',
  'oauth.clientMetadataDocuments.allowLoopback':
    'development only: it lets a client_id URL make the broker dial loopback addresses (docs/signin.md)',
};

describe('every broker setting through the chart', () => {
  const everyCase = brokerCases.find((testCase) => testCase.name === 'every broker setting')!;

  it('renders every key of the broker config from values (or from a Secret), except the few it must not', () => {
    const objects = objectsOf(everyCase.name);
    const fromEnv = (container(objects).main.env as { name: string; valueFrom?: unknown }[])
      .filter((entry) => entry.valueFrom !== undefined)
      .flatMap((entry) => envOverrides.filter((o) => o.variable === entry.name).map((o) => o.path.join('.')));
    const rendered = new Set([...documentLeaves(renderedConfig(everyCase)), ...fromEnv]);
    const schema = configSchemaLeaves();
    const missing = [...schema].filter((key) => !rendered.has(key) && !(key in notThroughTheChart));
    assert.deepEqual(missing, [], 'add these to values.yaml, values.schema.json and _config.tpl');
    const stale = Object.keys(notThroughTheChart).filter((key) => !schema.has(key) || rendered.has(key));
    assert.deepEqual(stale, [], 'no longer a broker key, or the chart sets it after all');
  });

  it('passes each setting through to the config the broker loads', () => {
    const config = loadedConfig(everyCase);
    assert.deepEqual(config.server.allowedHosts, ['broker.example.com', 'knowledge.example.com:443']);
    assert.deepEqual(config.server.allowedOrigins, ['https://broker.example.com', 'https://knowledge.example.com']);
    assert.deepEqual(
      [
        config.server.mcp.callsPerSubject,
        config.server.mcp.callsPerSubjectShared,
        config.server.mcp.queuedCallsPerSubject,
      ],
      [8, 2, 32],
    );
    assert.deepEqual(config.oauth, {
      registration: { disabled: true, maxClients: 200, unusedTtl: 30 * 60_000 },
      clientMetadataDocuments: { disabled: true, allowLoopback: false },
      maxRefreshTokenFamilies: 4000,
      maxRefreshTokenFamiliesPerUser: 10,
    });
    assert.equal(config.state.maxPendingSignIns, 2000);
    assert.deepEqual(config.rateLimit.userCode, { perMinute: 6, burst: 3 });
    assert.deepEqual(config.rateLimit.registration, { perMinute: 2, burst: 4 });
    assert.equal(config.worldDialer.failureThreshold, 5);
    assert.equal(config.worldDialer.cooldown, 10_000);
    assert.equal(config.redis?.sentinel?.passwordFile, '/etc/demarkus-broker/redis-sentinel/password');
    assert.equal(config.oidc.nextBrokerSigningKey, nextSigningKeyPem);
    assert.equal(config.metrics.enabled, false);
    assert.equal(config.hub, 'knowledge-hub');
    assert.equal(config.server.management.addr, ':9464');
    assert.deepEqual(config.server.shutdown, { drainDelay: 8_000, timeout: 15_000 });
  });

  it('takes the next signing key and the sentinel password from their Secrets, never into the config Secret', () => {
    const objects = objectsOf(everyCase.name);
    assert.doesNotMatch(configText(everyCase), /nextBrokerSigningKey/);
    for (const kind of ['Deployment', 'CronJob']) {
      const { pod, main } = container(objects, kind);
      const next = main.env.find((entry: any) => entry.name === 'BROKER_NEXT_SIGNING_KEY');
      assert.deepEqual(next?.valueFrom.secretKeyRef, { name: 'broker-next-signing-key', key: 'next.pem' }, kind);
      const volume = pod.volumes.find((v: any) => v.name === 'redis-sentinel-password');
      assert.deepEqual(
        volume?.secret,
        { secretName: 'redis-sentinel', items: [{ key: 'sentinel-password', path: 'password' }] },
        kind,
      );
      const mount = main.volumeMounts.find((m: any) => m.name === 'redis-sentinel-password');
      assert.deepEqual(
        mount,
        { name: 'redis-sentinel-password', mountPath: '/etc/demarkus-broker/redis-sentinel', readOnly: true },
        kind,
      );
    }
  });

  it("keeps the broker's own defaults: a default install loads what a config without those keys would", () => {
    const defaults = brokerCases[0]!;
    const document = renderedConfig(defaults) as Record<string, any>;
    // What the chart decides itself: its listener port, URLs and namespace, the generated cookie
    // key, the signing key, the worlds with their chart defaults, and one proxy (its Ingress
    // controller) in front. Everything else must load exactly as the broker's defaults.
    const chartChoices = {
      server: {
        addr: document.server.addr,
        publicURL: document.server.publicURL,
        brokerNamespace: document.server.brokerNamespace,
        cookieKey: document.server.cookieKey,
      },
      oidc: { brokerSigningKey: document.oidc.brokerSigningKey },
      worlds: document.worlds,
      rateLimit: { trustForwardedFor: document.rateLimit.trustForwardedFor },
    };
    assert.deepEqual(loadedConfig(defaults), parseBrokerConfig(stringify(chartChoices), {}));
  });
});
