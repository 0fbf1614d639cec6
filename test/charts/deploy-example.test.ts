/**
 * deploy/: the organisation example renders with the real helm, every object
 * is valid, the broker loads its config, and the pieces fit together: each
 * configured world has a world release in its namespace whose tokens Secret,
 * certificate names and network policy are what the broker expects.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse, parseAllDocuments } from 'yaml';
import { parseBrokerConfig, type BrokerConfig } from '../../src/broker/config/index.ts';
import { signingKeyPem } from './matrix.ts';
import { difference, granted, needed } from './rbac.ts';
import { lint, one, template, type KubeObject, type Rendered } from './render.ts';
import { schemaProblems } from './schema.ts';
import { podLabels, policiesSelecting, selects } from './selectors.ts';

const deploy = join(import.meta.dirname, '..', '..', 'deploy');
const valuesFile = (name: string) =>
  parse(readFileSync(join(deploy, 'values', name), 'utf8')) as Record<string, unknown>;
const env = { OIDC_CLIENT_SECRET: 'client-secret', BROKER_SIGNING_KEY: signingKeyPem };
const worldNames = ['root', 'team-a', 'team-b'];

let broker: Rendered;
let brokerDex: Rendered;
let brokerHa: Rendered;
const worlds = new Map<string, Rendered>();
const lints: Array<{ code: number; output: string }> = [];

before(async () => {
  const brokerRequest = {
    chart: 'demarkus-broker' as const,
    release: 'demarkus-broker',
    namespace: 'demarkus',
    values: [valuesFile('broker.yaml')],
  };
  const dexRequest = { ...brokerRequest, values: [valuesFile('broker.yaml'), valuesFile('broker-dex.yaml')] };
  const haRequest = { ...brokerRequest, values: [valuesFile('broker.yaml'), valuesFile('broker-ha.yaml')] };
  const worldRequests = worldNames.map((name) => ({
    chart: 'demarkus-world' as const,
    release: name,
    namespace: name,
    values: [valuesFile(`world-${name}.yaml`)],
  }));
  const [b, d, h, ...rest] = await Promise.all([
    template(brokerRequest),
    template(dexRequest),
    template(haRequest),
    ...worldRequests.map(template),
  ]);
  broker = b!;
  brokerDex = d!;
  brokerHa = h!;
  for (const [index, rendered] of rest.entries()) worlds.set(worldNames[index]!, rendered);
  lints.push(...(await Promise.all([brokerRequest, dexRequest, haRequest, ...worldRequests].map(lint))));
});

function config(rendered: Rendered): BrokerConfig {
  assert.equal(rendered.code, 0, rendered.stderr);
  const data = one(rendered.objects, 'Secret', 'demarkus-broker-config').data as Record<string, string>;
  return parseBrokerConfig(Buffer.from(data['config.yaml']!, 'base64').toString('utf8'), env);
}

describe('deploy/ organisation example (real helm)', () => {
  it('lints and renders every release', () => {
    for (const result of lints) assert.equal(result.code, 0, result.output);
    for (const rendered of [broker, brokerDex, brokerHa, ...worlds.values()])
      assert.equal(rendered.code, 0, rendered.stderr);
  });

  it('runs two replicas on the example Redis with the HA overlay', () => {
    const ha = config(brokerHa);
    assert.equal(ha.state.ephemeral, 'redis');
    assert.equal(ha.redis?.url, 'redis://redis-master.redis.svc.cluster.local:6379/0');
    assert.equal((one(brokerHa.objects, 'Deployment').spec as any).replicas, 2);
  });

  it('renders only objects valid against the Kubernetes API schemas, cluster issuers included', async () => {
    const issuers = parseAllDocuments(readFileSync(join(deploy, 'manifests', 'cluster-issuers.yaml'), 'utf8')).map(
      (doc) => doc.toJS() as KubeObject,
    );
    const all = [
      ...broker.objects,
      ...brokerDex.objects,
      ...brokerHa.objects,
      ...[...worlds.values()].flatMap((rendered) => rendered.objects),
      ...issuers,
    ];
    assert.deepEqual((await Promise.all(all.map(schemaProblems))).flat(), []);
  });

  it('gives the broker a config it loads, with Google or with the Dex overlay', () => {
    const google = config(broker);
    assert.equal(google.oidc.issuer, 'https://accounts.google.com');
    assert.equal(google.oidc.clientSecret, 'client-secret');
    assert.deepEqual(
      google.worlds.map((world) => world.name),
      worldNames,
    );
    assert.equal(google.worldDialer.insecureSkipVerify, false);
    assert.equal(google.worldDialer.caFile, '/etc/demarkus-broker/world-ca/ca.crt');
    const dex = config(brokerDex);
    assert.equal(dex.oidc.issuer, 'https://dex.example.com');
    assert.deepEqual(dex.worlds.find((world) => world.name === 'team-a')?.allow.groups, ['example-org:team-a']);
  });

  it('grants the broker exactly what its backends call for these worlds', () => {
    const loaded = config(broker);
    const want = needed({
      brokerNamespace: 'demarkus',
      worlds: loaded.worlds.map((world) => ({
        name: world.name,
        namespace: world.namespace!,
        tokensSecret: world.tokensSecret!,
      })),
      refreshTokensSecret: loaded.server.refreshTokensSecret,
      leaseName: loaded.sweeper.leaseName,
      sweeper: true,
      discovery: null,
    });
    const have = granted(broker.objects, { namespace: 'demarkus', name: 'demarkus-broker' });
    assert.deepEqual({ missing: difference(want, have), extra: difference(have, want) }, { missing: [], extra: [] });
  });

  for (const name of worldNames) {
    it(`fits world ${name} to what the broker expects of it`, () => {
      const world = config(broker).worlds.find((entry) => entry.name === name)!;
      const objects = worlds.get(name)!.objects;
      const job = one(objects, 'Job');
      const args = (job.spec as any).template.spec.containers[0].args as string[];
      assert.ok(
        args.includes(`--tokens-secret=${world.tokensSecret}`),
        'the bootstrap creates the Secret the broker updates',
      );
      assert.equal(job.metadata.namespace, world.namespace);
      const dialHost = `${name}.${world.namespace}.svc.cluster.local`;
      const service = one(objects, 'Service', name);
      assert.equal(
        `${service.metadata.name}.${service.metadata.namespace}.svc.cluster.local`,
        dialHost,
        'the default dial address is this Service',
      );
      const cert = one(objects, 'Certificate').spec as any;
      assert.ok(cert.dnsNames.includes(dialHost), 'the certificate names the dial host');
      assert.deepEqual(cert.issuerRef, { kind: 'ClusterIssuer', name: 'demarkus-worlds-ca' });
      const policy = one(objects, 'NetworkPolicy').spec as any;
      assert.equal(policy.ingress[0].from[0].namespaceSelector.matchLabels['kubernetes.io/metadata.name'], 'demarkus');
      assert.deepEqual(
        policiesSelecting(objects, podLabels(one(objects, 'StatefulSet'))).map((p) => p.metadata.name),
        [name],
        'the world pod is inside its NetworkPolicy',
      );
      const image = (one(objects, 'StatefulSet').spec as any).template.spec.containers[0].image;
      assert.equal(
        image,
        (one(broker.objects, 'Deployment').spec as any).template.spec.containers[0].image,
        'one image for broker and worlds',
      );
    });

    it(`lets world ${name}'s pre-upgrade token bootstrap reach the API server (its NetworkPolicy is on)`, () => {
      // The hook Job runs before the upgrade changes anything, so the policy in force is the
      // one the previous release installed, and no policy of this one may take the Job in either.
      const objects = worlds.get(name)!.objects;
      const bootstrap = podLabels(one(objects, 'Job'));
      assert.deepEqual(policiesSelecting(objects, bootstrap), [], 'no world NetworkPolicy (egress: []) selects it');
      const statefulSetSelector = (one(objects, 'StatefulSet').spec as any).selector;
      assert.equal(
        selects(statefulSetSelector, bootstrap),
        false,
        "outside the StatefulSet's immutable selector, the podSelector of the policies earlier releases installed",
      );
      for (const service of objects.filter((object) => object.kind === 'Service'))
        assert.equal(
          selects({ matchLabels: (service.spec as any).selector }, bootstrap),
          false,
          `Service ${service.metadata.name} sends no QUIC to the bootstrap pod`,
        );
    });
  }
});
