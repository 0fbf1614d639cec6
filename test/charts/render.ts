/**
 * `helm template` / `helm lint` with values given as objects (written to temp
 * files), the output parsed into Kubernetes objects.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { chartPath, helm } from './helm.ts';

export type KubeObject = {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string>; annotations?: Record<string, string> };
  [key: string]: unknown;
};

export type RenderRequest = {
  chart: 'demarkus-broker' | 'demarkus-world';
  release?: string;
  namespace?: string;
  values: readonly Record<string, unknown>[];
  /** `--set-file key=path`, for PEM keys. */
  setFiles?: Record<string, string>;
};

export type Rendered = { code: number; stderr: string; objects: KubeObject[] };

const scratch = mkdtempSync(join(tmpdir(), 'demarkus-charts-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));
let counter = 0;

function valueArgs(request: RenderRequest): string[] {
  const args: string[] = [];
  for (const values of request.values) {
    const file = join(scratch, `values-${process.pid}-${++counter}.yaml`);
    writeFileSync(file, JSON.stringify(values));
    args.push('-f', file);
  }
  for (const [key, path] of Object.entries(request.setFiles ?? {})) args.push('--set-file', `${key}=${path}`);
  return args;
}

export async function template(request: RenderRequest): Promise<Rendered> {
  const { code, stdout, stderr } = await helm([
    'template',
    request.release ?? 'demo',
    chartPath(request.chart),
    '--namespace',
    request.namespace ?? 'demarkus',
    ...valueArgs(request),
  ]);
  if (code !== 0) return { code, stderr, objects: [] };
  const objects = parseAllDocuments(stdout)
    .map((document) => document.toJS() as KubeObject | null)
    .filter((object): object is KubeObject => object !== null);
  return { code, stderr, objects };
}

export async function lint(request: RenderRequest): Promise<{ code: number; output: string }> {
  const { code, stdout, stderr } = await helm([
    'lint',
    '--strict',
    chartPath(request.chart),
    '--namespace',
    request.namespace ?? 'demarkus',
    ...valueArgs(request),
  ]);
  return { code, output: stdout + stderr };
}

export function find(objects: readonly KubeObject[], kind: string, name?: string): KubeObject[] {
  return objects.filter((object) => object.kind === kind && (name === undefined || object.metadata.name === name));
}

export function one(objects: readonly KubeObject[], kind: string, name?: string): KubeObject {
  const found = find(objects, kind, name);
  if (found.length !== 1)
    throw new Error(
      `expected one ${kind}${name ? ` ${name}` : ''}, found ${found.length}: ${objects.map((o) => `${o.kind}/${o.metadata.name}`).join(', ')}`,
    );
  return found[0]!;
}

/** The message of a template `fail`, as helm 4 (`execution error at (file:line:col): <message>`) or 3 (`error calling fail: <message>`) prints it. */
export function failMessage(stderr: string): string {
  return /(?:execution error at \([^)]*\)|error calling fail): (.*)$/m.exec(stderr)?.[1]?.trim() ?? stderr.trim();
}
