import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startBroker, type RunningBroker } from '../../src/broker/broker.ts';
import { parseBrokerConfig } from '../../src/broker/config/index.ts';
import { generateSigningKeyPem } from '../../src/broker/auth/signing-key.ts';
import { mintBrokerToken } from '../../src/broker/auth/mint-broker-token.ts';
import { startWorldServer, type WorldServer } from '../../src/world/world-server.ts';
import { startFakeApiServer, type FakeApiServer } from '../kubernetes/fake-api/server.ts';
import { apis, eventually } from '../kubernetes/helpers.ts';
import { testTls } from '../world/world-fixture.ts';
import { freePorts, resultText } from './stack-fixture.ts';

/**
 * The broker with `storage.backend: kubernetes` and live discovery, against a
 * fake Kubernetes API server (real @kubernetes/client-node) and a real world:
 * the write token lands in Secrets and reaches the world as the kubelet would
 * project it; a labelled Service joins and leaves the world list.
 */
describe('broker on Kubernetes backends and discovery (fake API server)', () => {
  let api: FakeApiServer;
  let world: WorldServer;
  let broker: RunningBroker;
  let client: Client;
  let dir: string;
  const previousKubeconfig = process.env.KUBECONFIG;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'demarkus-k8s-'));
    api = await startFakeApiServer(['broker']);
    const tokensFile = join(dir, 'team-a', 'tokens.toml');
    await mkdir(join(dir, 'team-a'), { recursive: true });
    await writeFile(tokensFile, '[tokens]\n');
    // The kubelet's part: project the world's tokens Secret into the world's file.
    api.onWrite((request, body) => {
      if (request.resource === 'secrets' && request.namespace === 'team-a' && body.metadata.name === 'team-a-tokens') {
        const data = (body as { data?: Record<string, string> }).data ?? {};
        if (data['tokens.toml']) writeFileSync(tokensFile, Buffer.from(data['tokens.toml'], 'base64'));
      }
    });
    const { core } = apis(api);
    await core.createNamespacedSecret({
      namespace: 'team-a',
      body: {
        metadata: { name: 'team-a-tokens' },
        data: { 'tokens.toml': Buffer.from('[tokens]\n').toString('base64') },
      },
    });
    const tls = await testTls();
    await writeFile(join(dir, 'ca.pem'), tls.cert);
    world = await startWorldServer({
      root: join(dir, 'team-a', 'root'),
      tokensFile,
      listen: { host: '127.0.0.1', port: 0 },
      tls,
    });
    const kubeconfigFile = join(dir, 'kubeconfig');
    await writeFile(kubeconfigFile, api.kubeConfig('broker', 'broker').exportConfig());
    process.env.KUBECONFIG = kubeconfigFile;
    const [issuerPort, mcp] = await freePorts(2);
    const config = parseBrokerConfig(
      stringify({
        server: {
          addr: `127.0.0.1:${issuerPort}`,
          publicURL: `http://127.0.0.1:${issuerPort}`,
          brokerNamespace: 'broker',
          mcp: {
            addr: `127.0.0.1:${mcp}`,
            publicURL: `http://127.0.0.1:${mcp}`,
            firstMintInitialBackoff: '50ms',
            firstMintMaxBackoff: '400ms',
            firstMintMaxAttempts: 10,
          },
          management: { addr: '127.0.0.1:0' },
        },
        oidc: { brokerSigningKey: generateSigningKeyPem() },
        storage: { backend: 'kubernetes' },
        worlds: [
          {
            name: 'team-a',
            namespace: 'team-a',
            tokensSecret: 'team-a-tokens',
            internalAddress: `localhost:${world.port}`,
            defaultToken: { paths: ['/**'] },
          },
        ],
        discovery: { enabled: true, namespaces: ['team-b'] },
        worldDialer: { caFile: join(dir, 'ca.pem') },
      }),
      {},
    );
    broker = await startBroker(config);
    const token = await mintBrokerToken({
      key: broker.trust.key,
      issuer: broker.trust.issuer,
      audience: broker.trust.resource,
      email: 'alice@example.com',
      ttlSeconds: 600,
    });
    client = new Client({ name: 'k8s-e2e', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(broker.trust.resource), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    );
  });

  after(async () => {
    await client?.close().catch(() => undefined);
    await broker?.close();
    await world?.close();
    await api?.close();
    if (previousKubeconfig === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = previousKubeconfig;
    await rm(dir, { recursive: true, force: true });
  });

  it('provisions the write token into Secrets and the world accepts the write', async () => {
    const result = await client.callTool({
      name: 'mark_publish',
      arguments: { url: 'mark://team-a/docs/k8s.md', body: '# On Kubernetes\n', expected_version: 0 },
    });
    assert.match(resultText(result), /^status: created\n/);
    const record = api.store.get('secrets', 'broker', 'demarkus-broker-write-token-team-a');
    assert.ok(record, 'write token record Secret in the broker namespace');
    const secret = api.store.get('secrets', 'team-a', 'team-a-tokens') as unknown as { data: Record<string, string> };
    const tokens = Buffer.from(secret.data['tokens.toml']!, 'base64').toString();
    assert.match(
      tokens,
      /\[tokens\.broker-write-team-a\]\nhash = "sha256-[0-9a-f]{64}"\npaths = \["\/\*\*"\]\noperations = \["publish"\]\n/,
    );
  });

  it('adds a world when a labelled Service appears and removes it when the Service goes', async () => {
    const { core } = apis(api);
    await core.createNamespacedService({
      namespace: 'team-b',
      body: {
        metadata: { name: 'team-b', labels: { 'demarkus.io/world': 'team-b' } },
        spec: { ports: [{ name: 'mark', protocol: 'UDP', port: 6309 }] },
      },
    });
    await eventually(() => broker.gateway.get('team-b') !== undefined, 'team-b discovered');
    assert.match(
      resultText(await client.callTool({ name: 'mark_worlds', arguments: {} })),
      /\| team-b \| {2}\| mark:\/\/team-b\.team-b\.svc\.cluster\.local:6309 \| no \|/,
    );
    // The replicas' record of who serves the name, in the broker's state Secret (src/broker/kubernetes/served-names.ts).
    const servedNames = () => {
      const secret = api.store.get('secrets', 'broker', 'demarkus-broker-state-discovery-served-names') as unknown as
        | { data: Record<string, string> }
        | undefined;
      const data = secret?.data['discovery_served_names.json'];
      return data === undefined ? undefined : JSON.parse(Buffer.from(data, 'base64').toString());
    };
    await eventually(() => servedNames()?.['team-b'] === 'team-b/team-b', 'the served name recorded');
    await core.deleteNamespacedService({ namespace: 'team-b', name: 'team-b' });
    await eventually(() => broker.gateway.get('team-b') === undefined, 'team-b removed');
    await eventually(() => servedNames()?.['team-b'] === undefined, 'the record forgets the name');
  });

  it('counts a Service that claims a name another Service serves, and keeps serving the first', async () => {
    const { core } = apis(api);
    const claim = (name: string) =>
      core.createNamespacedService({
        namespace: 'team-b',
        body: {
          metadata: { name, labels: { 'demarkus.io/world': 'team-x' } },
          spec: { ports: [{ name: 'mark', protocol: 'UDP', port: 6309 }] },
        },
      });
    const conflictsBecome = (expected: number) => {
      const gauge = broker.metrics.registry.getSingleMetric('broker_discovery_name_conflicts');
      return eventually(
        async () => (await gauge?.get())?.values[0]?.value === expected,
        `broker_discovery_name_conflicts to become ${expected}`,
      );
    };
    await claim('zz-first');
    await eventually(() => broker.gateway.get('team-x') !== undefined, 'team-x discovered');
    await claim('aa-second');
    await conflictsBecome(1);
    assert.equal(broker.gateway.get('team-x')?.address, 'zz-first.team-b.svc.cluster.local:6309');
    await core.deleteNamespacedService({ namespace: 'team-b', name: 'zz-first' });
    await eventually(
      () => broker.gateway.get('team-x')?.address === 'aa-second.team-b.svc.cluster.local:6309',
      'the remaining claimant serves',
    );
    await conflictsBecome(0);
    await core.deleteNamespacedService({ namespace: 'team-b', name: 'aa-second' });
  });
});
