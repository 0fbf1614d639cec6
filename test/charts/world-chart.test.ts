/**
 * charts/demarkus-world rendered by the real helm over a matrix of values:
 * lint, schema validity, hardening, the discovery label, the tokens bootstrap
 * Job in our own image with RBAC equal to what it calls, and one run of what
 * the chart describes: the StatefulSet's own arguments, its generated dev
 * certificate and a tokens.toml made by the bootstrap code (against a fake
 * Kubernetes API server) start a real world, which then answers the chart's
 * exec probe and accepts the admin token.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CoreV1Api } from '@kubernetes/client-node';
import { bootstrapWorldTokens, worldBootstrapApiCalls } from '../../src/broker/kubernetes/index.ts';
import { hookStartSignal, startWorldProcess, type WorldProcess } from '../cli/cli-process.ts';
import { startFakeApiServer } from '../kubernetes/fake-api/server.ts';
import { worldCases, type WorldCase } from './matrix.ts';
import { granted, tuple } from './rbac.ts';
import { find, lint, one, template, type KubeObject, type Rendered } from './render.ts';
import { schemaProblems } from './schema.ts';
import { podLabels, selects } from './selectors.ts';

const repo = join(import.meta.dirname, '..', '..');
const results = new Map<string, { rendered: Rendered; lint: { code: number; output: string } }>();

before(async () => {
  await Promise.all(
    worldCases.map(async (testCase) => {
      const request = {
        chart: 'demarkus-world' as const,
        release: testCase.release,
        namespace: testCase.namespace,
        values: [testCase.values],
      };
      const [rendered, linted] = await Promise.all([template(request), lint(request)]);
      results.set(testCase.name, { rendered, lint: linted });
    }),
  );
});

const objectsOf = (name: string): KubeObject[] => {
  const result = results.get(name)!;
  assert.equal(result.rendered.code, 0, result.rendered.stderr);
  return result.rendered.objects;
};
const worldContainer = (objects: KubeObject[]) => (one(objects, 'StatefulSet').spec as any).template.spec.containers[0];
const fullname = (testCase: WorldCase) =>
  (testCase.values.fullnameOverride as string | undefined) ?? `${testCase.release}-demarkus-world`;

describe('demarkus-world chart over the values matrix (real helm)', () => {
  for (const testCase of worldCases) {
    describe(testCase.name, () => {
      it('passes helm lint --strict', () => {
        const { lint: linted } = results.get(testCase.name)!;
        assert.equal(linted.code, 0, linted.output);
      });

      it('renders only objects that are valid against the Kubernetes API schemas', async () => {
        const objects = objectsOf(testCase.name);
        assert.deepEqual((await Promise.all(objects.map(schemaProblems))).flat(), []);
        for (const object of objects)
          assert.equal(object.metadata.namespace, testCase.namespace, `${object.kind}/${object.metadata.name}`);
      });

      it('runs one hardened world pod with its volume, UDP port and CLI probes', () => {
        const objects = objectsOf(testCase.name);
        const set = one(objects, 'StatefulSet').spec as any;
        assert.equal(set.replicas, 1);
        assert.equal(
          set.volumeClaimTemplates[0].spec.resources.requests.storage,
          (testCase.values.storage as any)?.size ?? '5Gi',
        );
        assert.equal(set.persistentVolumeClaimRetentionPolicy.whenDeleted, 'Retain');
        const pod = set.template.spec;
        const main = pod.containers[0];
        assert.equal(pod.automountServiceAccountToken, false, 'the world never calls the API server');
        assert.equal(pod.securityContext.runAsUser, 65532);
        assert.equal(main.securityContext.readOnlyRootFilesystem, true);
        assert.deepEqual(main.securityContext.capabilities.drop, ['ALL']);
        assert.deepEqual(main.ports, [{ name: 'mark', containerPort: 6309, protocol: 'UDP' }]);
        for (const probe of [main.startupProbe, main.livenessProbe, main.readinessProbe]) {
          assert.deepEqual(probe.exec.command, [
            'node',
            '/app/dist/cli/main.js',
            'mark',
            'fetch',
            'mark://127.0.0.1:6309/health',
            '--insecure',
            '--timeout',
            '3000',
          ]);
        }
        const tokens = pod.volumes.find((volume: any) => volume.name === 'tokens');
        const mount = main.volumeMounts.find((volume: any) => volume.name === 'tokens');
        assert.equal(mount.subPath, undefined, 'a directory mount, so Secret updates reach the pod');
        assert.equal(
          tokens.secret.secretName,
          (testCase.values.tokens as any)?.existingSecret ?? `${fullname(testCase)}-tokens`,
        );
        const service = one(objects, 'Service', fullname(testCase));
        assert.deepEqual((service.spec as any).ports, [
          { name: 'mark', port: 6309, targetPort: 'mark', protocol: 'UDP' },
        ]);
      });
    });
  }

  it('labels the Service for discovery with the world name, and the headless Service not at all', () => {
    const objects = objectsOf('defaults (generated dev certificate)');
    assert.equal(one(objects, 'Service', 'team-a').metadata.labels?.['demarkus.io/world'], 'team-a');
    assert.equal(one(objects, 'Service', 'team-a-pods').metadata.labels?.['demarkus.io/world'], undefined);
    assert.equal(
      one(objectsOf('existing TLS and tokens Secrets, no bootstrap'), 'Service', 'team-b').metadata.labels?.[
        'demarkus.io/world'
      ],
      undefined,
      'discovery.enabled: false',
    );
    const ops = one(
      objectsOf('admin token from a Secret, no raw values, network policy'),
      'Service',
      'ops-demarkus-world',
    );
    assert.equal(ops.metadata.labels?.['demarkus.io/world'], 'ops', 'world.name, not the Service name');
  });

  it('takes TLS from cert-manager with the in-cluster DNS names, and puts the public URL on the Service', () => {
    const objects = objectsOf('cert-manager TLS and a public LoadBalancer');
    const cert = one(objects, 'Certificate').spec as any;
    assert.deepEqual(cert.dnsNames, ['root', 'root.root', 'root.root.svc', 'root.root.svc.cluster.local']);
    assert.equal(cert.secretName, 'root-tls');
    assert.deepEqual(find(objects, 'Secret'), [], 'no generated certificate');
    const service = one(objects, 'Service', 'root');
    assert.equal(service.metadata.annotations?.['demarkus.io/public-url'], 'mark://knowledge.example.com:6309');
    assert.deepEqual(
      [(service.spec as any).type, (service.spec as any).loadBalancerIP],
      ['LoadBalancer', '203.0.113.10'],
    );
  });

  it('uses existing Secrets without a bootstrap Job or a generated certificate', () => {
    const objects = objectsOf('existing TLS and tokens Secrets, no bootstrap');
    assert.deepEqual(find(objects, 'Job'), []);
    assert.deepEqual(find(objects, 'Secret'), []);
    const volumes = (one(objects, 'StatefulSet').spec as any).template.spec.volumes;
    assert.equal(volumes.find((volume: any) => volume.name === 'tls').secret.secretName, 'team-b-cert');
  });

  it('bootstraps tokens once with a hook Job in our own image, allowed exactly what the bootstrap calls', () => {
    const objects = objectsOf('defaults (generated dev certificate)');
    const job = one(objects, 'Job', 'team-a-token-bootstrap');
    assert.equal(job.metadata.annotations?.['helm.sh/hook'], 'pre-install,pre-upgrade');
    const spec = (job.spec as any).template.spec;
    assert.equal(spec.containers[0].image, worldContainer(objects).image, 'the world image, no third-party image');
    assert.deepEqual(spec.containers[0].command, [
      'node',
      '/app/dist/broker/kubernetes/world-tokens-bootstrap-main.js',
    ]);
    assert.deepEqual(spec.containers[0].args, [
      '--world=team-a',
      '--tokens-secret=team-a-tokens',
      '--values-secret=team-a-token-values',
      '--label=admin',
      '--paths=/**',
      '--ops=publish',
    ]);
    for (const kind of ['ServiceAccount', 'Role', 'RoleBinding']) {
      assert.ok(
        Number(one(objects, kind, 'team-a-token-bootstrap').metadata.annotations?.['helm.sh/hook-weight']) < 0,
        `${kind} exists before the Job`,
      );
    }
    const want = new Set(
      worldBootstrapApiCalls.flatMap((call) =>
        call.verbs.flatMap((verb) =>
          (call.objects === 'any' ? ['*'] : ['team-a-tokens', 'team-a-token-values']).map((name) =>
            tuple('team-a', '', 'secrets', verb, name),
          ),
        ),
      ),
    );
    assert.deepEqual(
      [...granted(objects, { namespace: 'team-a', name: 'team-a-token-bootstrap' })].sort(),
      [...want].sort(),
    );
    const ops = one(objectsOf('admin token from a Secret, no raw values, network policy'), 'Job');
    const container = (ops.spec as any).template.spec.containers[0];
    assert.ok(!container.args.some((arg: string) => arg.startsWith('--values-secret')));
    assert.deepEqual(container.env.find((entry: any) => entry.name === 'DEMARKUS_ADMIN_TOKEN').valueFrom.secretKeyRef, {
      name: 'ops-admin-token',
      key: 'token',
    });
  });

  it('restricts UDP 6309 to the listed peers when the NetworkPolicy is on, for the world pod only', () => {
    const objects = objectsOf('admin token from a Secret, no raw values, network policy');
    const policy = one(objects, 'NetworkPolicy').spec as any;
    assert.deepEqual(policy.ingress[0].ports, [{ protocol: 'UDP', port: 6309 }]);
    assert.deepEqual(policy.egress, []);
    assert.equal(selects(policy.podSelector, podLabels(one(objects, 'StatefulSet'))), true);
    // The bootstrap hook reads and creates Secrets through the API server: no egress would fail every upgrade.
    assert.equal(selects(policy.podSelector, podLabels(one(objects, 'Job'))), false);
  });
});

const seedWorldMd = '# Team A\n\nSign-in and access reviews.\n\n## Owners\n\n- team-a@example.com\n';

describe('the rendered world runs (chart arguments, dev certificate, bootstrapped tokens, seeded world.md)', () => {
  let dir: string;
  let world: WorldProcess | undefined;
  let adminToken = '';

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'demarkus-world-chart-'));
    // The defaults plus a seeded world.md: the run covers the seed ConfigMap and argument too.
    const seeded = await template({
      chart: 'demarkus-world',
      release: 'team-a',
      namespace: 'team-a',
      values: [{ fullnameOverride: 'team-a', seed: { worldMd: seedWorldMd } }],
    });
    assert.equal(seeded.code, 0, seeded.stderr);
    const objects = seeded.objects;
    const seedMap = one(objects, 'ConfigMap', 'team-a-seed').data as Record<string, string>;
    writeFileSync(join(dir, 'world.md'), seedMap['world.md']!);
    const tls = one(objects, 'Secret', 'team-a-tls').data as Record<string, string>;
    writeFileSync(join(dir, 'tls.crt'), Buffer.from(tls['tls.crt']!, 'base64'));
    writeFileSync(join(dir, 'tls.key'), Buffer.from(tls['tls.key']!, 'base64'));
    // The bootstrap Job's code, against a fake API server, produces the tokens Secret.
    const api = await startFakeApiServer();
    try {
      await bootstrapWorldTokens({
        core: api.kubeConfig().makeApiClient(CoreV1Api),
        namespace: 'team-a',
        world: 'team-a',
        tokensSecret: 'team-a-tokens',
        valuesSecret: 'team-a-token-values',
        label: 'admin',
        paths: ['/**'],
        operations: ['publish'],
      });
      const secret = (name: string, key: string) =>
        Buffer.from(((api.store.get('secrets', 'team-a', name)?.data ?? {}) as Record<string, string>)[key]!, 'base64');
      writeFileSync(join(dir, 'tokens.toml'), secret('team-a-tokens', 'tokens.toml'));
      adminToken = secret('team-a-token-values', 'token').toString();
    } finally {
      await api.close();
    }
    const args = (worldContainer(objects).args as string[]).slice(1).map((arg) =>
      arg
        .replace('/data/', `${dir}/`)
        .replace('/etc/demarkus/tokens/', `${dir}/`)
        .replace('/etc/demarkus/tls/', `${dir}/`)
        .replace('/etc/demarkus/seed/', `${dir}/`)
        .replace(/^--listen=.*$/, '--listen=127.0.0.1:0'),
    );
    world = await startWorldProcess(args, { signal: hookStartSignal() });
  });

  after(() => {
    world?.child.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  });

  const cli = (args: string[]) =>
    new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const child = spawn(process.execPath, [join(repo, 'bin', 'demarkus-broker.js'), ...args], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      child.stdout.on('data', (chunk) => (stdout += chunk));
      child.on('close', (code) => resolve({ code, stdout }));
    });

  it("passes the chart's exec probe", async () => {
    const probe = worldContainer(objectsOf('defaults (generated dev certificate)')).readinessProbe.exec
      .command as string[];
    const result = await cli(probe.slice(2).map((arg) => arg.replace(':6309/', `:${world!.port}/`)));
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^status: ok$/m);
  });

  it('serves the world.md seeded from values on first start', async () => {
    const result = await cli(['mark', 'fetch', `mark://127.0.0.1:${world!.port}/world.md`, '--insecure']);
    assert.equal(result.code, 0, result.stdout);
    assert.ok(result.stdout.includes(seedWorldMd), result.stdout);
    const mount = (worldContainer(objectsOf('defaults (generated dev certificate)')).volumeMounts as any[]).map(
      (m) => m.name,
    );
    assert.ok(!mount.includes('seed'), 'without seed.worldMd nothing is mounted');
  });

  it('accepts a write with the bootstrapped admin token and refuses one without', async () => {
    const url = `mark://127.0.0.1:${world!.port}/notes/hello.md`;
    const refused = await cli(['mark', 'publish', url, '--insecure', '--body', '# Hello\n']);
    assert.equal(refused.code, 3);
    assert.match(refused.stdout, /^status: unauthorized$/m);
    const accepted = await cli(['mark', 'publish', url, '--insecure', '--token', adminToken, '--body', '# Hello\n']);
    assert.equal(accepted.code, 0, accepted.stdout);
    assert.match(accepted.stdout, /^status: created$/m);
  });
});
