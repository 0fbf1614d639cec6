/**
 * charts/<chart>/values.schema.json, as the real helm applies it before any
 * template runs: wrong types and unknown enum values stop the render with
 * helm's schema message, while the chart defaults and the deploy/ example
 * values pass. Every object whose keys the chart owns is closed
 * (`additionalProperties: false`), so a misspelled key stops the render instead
 * of being ignored; objects passed through to Kubernetes stay open. The
 * render-time guards (guards.test.ts) stay reachable: the schema checks
 * shapes, the templates check meaning.
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { chartPath } from './helm.ts';
import { failMessage, template, type Rendered } from './render.ts';

type Chart = 'demarkus-broker' | 'demarkus-world';
type Values = Record<string, unknown>;
type SchemaNode = {
  $ref?: string;
  type?: string | string[];
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  definitions?: Record<string, SchemaNode>;
};

const deploy = join(import.meta.dirname, '..', '..', 'deploy', 'values');
const deployValues = (name: string) => parse(readFileSync(join(deploy, name), 'utf8')) as Values;
const chartFile = (chart: Chart, name: string) => readFileSync(join(chartPath(chart), name), 'utf8');

const brokerBase: Values = {
  server: { publicURL: 'https://broker.example.com' },
  oidc: { existingSigningKeyRef: { name: 'broker-signing-key' } },
  worlds: [{ name: 'root' }],
};
const worldBase: Values = { fullnameOverride: 'team-a' };

/** The lines helm prints under "values don't meet the specifications of the schema(s)". */
function schemaErrors(stderr: string): string[] {
  if (!stderr.includes("values don't meet the specifications of the schema(s)")) return [];
  return stderr
    .split('\n')
    .filter((line) => line.startsWith('- at '))
    .map((line) => line.slice(2).trim());
}

type Rejection = { chart: Chart; name: string; values: Values; error: string };

const rejections: Rejection[] = [
  {
    chart: 'demarkus-broker',
    name: 'a misspelled top-level key (--set ingres.enabled=true)',
    values: { ingres: { enabled: true } },
    error: "at '': additional properties 'ingres' not allowed",
  },
  {
    chart: 'demarkus-broker',
    name: 'a misspelled key in a chart-owned block (probe timing)',
    values: { probes: { liveness: { periodSecond: 3 } } },
    error: "at '/probes/liveness': additional properties 'periodSecond' not allowed",
  },
  {
    chart: 'demarkus-broker',
    name: 'a misspelled key in a world entry',
    values: { worlds: [{ name: 'root', namespce: 'root' }] },
    error: "at '/worlds/0': additional properties 'namespce' not allowed",
  },
  {
    chart: 'demarkus-broker',
    name: 'a hub that is not a world name (the broker config would refuse it at start-up)',
    values: { crawl: { hub: 'Main' } },
    error: "at '/crawl/hub': 'Main' does not match pattern '^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$'",
  },
  {
    chart: 'demarkus-world',
    name: 'a misspelled top-level key',
    values: { storge: { size: '1Gi' } },
    error: "at '': additional properties 'storge' not allowed",
  },
  {
    chart: 'demarkus-world',
    name: 'a misspelled storage key',
    values: { storage: { sise: '1Gi' } },
    error: "at '/storage': additional properties 'sise' not allowed",
  },
  {
    chart: 'demarkus-broker',
    name: 'a string replica count',
    values: { replicaCount: 'two' },
    error: "at '/replicaCount': got string, want integer",
  },
  {
    chart: 'demarkus-broker',
    name: 'an unknown log level',
    values: { logLevel: 'verbose' },
    error: "at '/logLevel': value must be one of 'fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'",
  },
  {
    chart: 'demarkus-broker',
    name: 'a string first-write retry count',
    values: { server: { ...(brokerBase.server as Values), mcp: { firstMintMaxAttempts: 'ten' } } },
    error: "at '/server/mcp/firstMintMaxAttempts': got string, want integer",
  },
  {
    chart: 'demarkus-broker',
    name: 'an unknown key in a rate bucket (the broker config would refuse it)',
    values: { rateLimit: { tokens: { perMinute: 120, perHour: 1000 } } },
    error: "at '/rateLimit/tokens': additional properties 'perHour' not allowed",
  },
  {
    chart: 'demarkus-broker',
    name: 'a misspelled sign-in setting (oauth.clientMetadataDocuments.disable)',
    values: { oauth: { clientMetadataDocuments: { disable: true } } },
    error: "at '/oauth/clientMetadataDocuments': additional properties 'disable' not allowed",
  },
  {
    chart: 'demarkus-broker',
    name: 'a circuit threshold of zero (the broker refuses it too)',
    values: { worldDialer: { failureThreshold: 0 } },
    error: "at '/worldDialer/failureThreshold': minimum: got 0, want 1",
  },
  {
    chart: 'demarkus-broker',
    name: 'an unquoted number as an ingress annotation',
    values: { ingress: { mcp: { annotations: { 'nginx.ingress.kubernetes.io/proxy-read-timeout': 3600 } } } },
    error: "at '/ingress/mcp/annotations/nginx.ingress.kubernetes.io~1proxy-read-timeout': got number, want string",
  },
  {
    chart: 'demarkus-broker',
    name: 'an unknown ingress path type',
    values: { ingress: { pathType: 'Regex' } },
    error: "at '/ingress/pathType': value must be one of 'Prefix', 'Exact', 'ImplementationSpecific'",
  },
  {
    chart: 'demarkus-world',
    name: 'a string replica count',
    values: { replicaCount: 'one' },
    error: "at '/replicaCount': got string, want integer",
  },
  {
    chart: 'demarkus-world',
    name: 'an unknown Service type',
    values: { service: { type: 'Public' } },
    error: "at '/service/type': value must be one of 'ClusterIP', 'NodePort', 'LoadBalancer'",
  },
  {
    chart: 'demarkus-world',
    name: 'a Block volume (the data volume is mounted as a directory)',
    values: { storage: { volumeMode: 'Block' } },
    error: "at '/storage/volumeMode': value must be 'Filesystem'",
  },
  {
    chart: 'demarkus-world',
    name: 'a string for the bootstrap switch',
    values: { tokens: { bootstrap: { enabled: 'yes' } } },
    error: "at '/tokens/bootstrap/enabled': got string, want boolean",
  },
];

const base = (chart: Chart) => (chart === 'demarkus-broker' ? brokerBase : worldBase);
const renders = new Map<string, Rendered>();

before(async () => {
  const requests: Array<[string, Parameters<typeof template>[0]]> = [
    ...rejections.map((rejection): [string, Parameters<typeof template>[0]] => [
      `${rejection.chart}: ${rejection.name}`,
      { chart: rejection.chart, release: rejection.chart, values: [base(rejection.chart), rejection.values] },
    ]),
    ['broker base', { chart: 'demarkus-broker', release: 'demarkus-broker', values: [brokerBase] }],
    [
      'broker base with Kubernetes-owned and parent-chart keys',
      {
        chart: 'demarkus-broker',
        release: 'demarkus-broker',
        values: [
          brokerBase,
          {
            global: { imageRegistry: 'registry.example.com' },
            securityContext: { privileged: false },
            podSecurityContext: { fsGroup: 10001 },
            resources: { requests: { cpu: '200m' }, claims: [{ name: 'gpu' }] },
            extraEnv: [{ name: 'HTTPS_PROXY', valueFrom: { configMapKeyRef: { name: 'proxy', key: 'url' } } }],
          },
        ],
      },
    ],
    ['broker defaults', { chart: 'demarkus-broker', release: 'demarkus-broker', values: [] }],
    ['world defaults', { chart: 'demarkus-world', release: 'team-a', values: [] }],
    ['deploy broker', { chart: 'demarkus-broker', release: 'demarkus-broker', values: [deployValues('broker.yaml')] }],
    [
      'deploy broker with Dex',
      {
        chart: 'demarkus-broker',
        release: 'demarkus-broker',
        values: [deployValues('broker.yaml'), deployValues('broker-dex.yaml')],
      },
    ],
    ...['root', 'team-a', 'team-b'].map((name): [string, Parameters<typeof template>[0]] => [
      `deploy world ${name}`,
      { chart: 'demarkus-world', release: name, namespace: name, values: [deployValues(`world-${name}.yaml`)] },
    ]),
  ];
  await Promise.all(requests.map(async ([key, request]) => renders.set(key, await template(request))));
});

function resolve(root: SchemaNode, node: SchemaNode): SchemaNode {
  if (node.$ref === undefined) return node;
  const name = node.$ref.replace('#/definitions/', '');
  const target = root.definitions?.[name];
  assert.ok(target, `unresolved $ref ${node.$ref}`);
  return resolve(root, target);
}

/** Paths of values.yaml keys the schema has no property for, in objects that list their properties. */
function undescribed(root: SchemaNode, node: SchemaNode, value: unknown, path: string): string[] {
  const schema = resolve(root, node);
  if (Array.isArray(value))
    return schema.items === undefined
      ? []
      : value.flatMap((item, i) => undescribed(root, schema.items!, item, `${path}[${i}]`));
  if (value === null || typeof value !== 'object' || schema.properties === undefined) return [];
  return Object.entries(value as Values).flatMap(([key, child]) => {
    const property = schema.properties![key];
    if (property !== undefined) return undescribed(root, property, child, `${path}.${key}`);
    return typeof schema.additionalProperties === 'object' ? [] : [`${path}.${key}`];
  });
}

/** Objects whose keys Kubernetes or cert-manager defines: passed through, so left open. */
const kubernetesOwned: Record<Chart, readonly string[]> = {
  'demarkus-broker': [
    '.podSecurityContext',
    '.securityContext',
    '.topologySpreadConstraints[]',
    '.extraEnv[]',
    '.imagePullSecrets[]',
    '#resources',
    '#ingressTLS.certManager.issuerRef',
  ],
  'demarkus-world': [
    '.podSecurityContext',
    '.securityContext',
    '.imagePullSecrets[]',
    '#resources',
    '.tls.certManager.issuerRef',
  ],
};

/** Paths of objects that list properties but admit any other key, outside the Kubernetes-owned ones. */
function openObjects(node: SchemaNode, path: string, owned: readonly string[]): string[] {
  if (owned.some((prefix) => path === prefix || path.startsWith(`${prefix}.`))) return [];
  const own = node.properties !== undefined && node.additionalProperties === undefined ? [path || '.'] : [];
  return [
    ...own,
    ...Object.entries(node.properties ?? {}).flatMap(([key, child]) => openObjects(child, `${path}.${key}`, owned)),
    ...(node.items === undefined ? [] : openObjects(node.items, `${path}[]`, owned)),
    ...Object.entries(node.definitions ?? {}).flatMap(([name, child]) => openObjects(child, `#${name}`, owned)),
  ];
}

describe('values.schema.json (real helm)', () => {
  for (const rejection of rejections) {
    it(`${rejection.chart} rejects ${rejection.name} with helm's schema message`, () => {
      const rendered = renders.get(`${rejection.chart}: ${rejection.name}`)!;
      assert.notEqual(rendered.code, 0);
      assert.deepEqual(schemaErrors(rendered.stderr), [rejection.error]);
    });
  }

  it('leaves the keys Kubernetes or a parent chart owns open: securityContext, resources, extraEnv, global', () => {
    const rendered = renders.get('broker base with Kubernetes-owned and parent-chart keys')!;
    assert.deepEqual(schemaErrors(rendered.stderr), []);
    assert.equal(rendered.code, 0, rendered.stderr);
  });

  it('renders the base values the rejections start from (the schema is the only reason they fail)', () => {
    for (const key of ['broker base', 'world defaults']) {
      const rendered = renders.get(key)!;
      assert.equal(rendered.code, 0, rendered.stderr);
    }
  });

  it('accepts the broker defaults and leaves the missing public URL to the render-time guard', () => {
    const rendered = renders.get('broker defaults')!;
    assert.notEqual(rendered.code, 0);
    assert.deepEqual(schemaErrors(rendered.stderr), []);
    assert.equal(
      failMessage(rendered.stderr),
      "server.publicURL is required: the broker's external base URL, e.g. https://broker.example.com",
    );
  });

  it('accepts the deploy/ example values of the broker (Google and Dex) and of every world', () => {
    for (const key of [
      'deploy broker',
      'deploy broker with Dex',
      'deploy world root',
      'deploy world team-a',
      'deploy world team-b',
    ]) {
      const rendered = renders.get(key)!;
      assert.deepEqual(schemaErrors(rendered.stderr), [], key);
      assert.equal(rendered.code, 0, `${key}: ${rendered.stderr}`);
    }
  });

  for (const chart of ['demarkus-broker', 'demarkus-world'] as const) {
    it(`${chart}: closes every object whose keys the chart owns`, () => {
      const schema = JSON.parse(chartFile(chart, 'values.schema.json')) as SchemaNode;
      assert.deepEqual(openObjects(schema, '', kubernetesOwned[chart]), []);
    });

    it(`${chart}: is draft-07 JSON Schema and describes every key of values.yaml`, () => {
      const schema = JSON.parse(chartFile(chart, 'values.schema.json')) as SchemaNode & { $schema: string };
      assert.equal(schema.$schema, 'http://json-schema.org/draft-07/schema#');
      assert.deepEqual(undescribed(schema, schema, parse(chartFile(chart, 'values.yaml')), ''), []);
    });
  }
});
