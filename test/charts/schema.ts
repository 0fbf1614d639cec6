/**
 * Validation of rendered objects against the Kubernetes API schemas, two ways:
 *
 * - kubernetes-models (and its cert-manager / prometheus-operator packages):
 *   validators generated from the OpenAPI schemas, for types, required
 *   fields, enums and formats;
 * - the @kubernetes/client-node model classes (Kubernetes 1.36 OpenAPI), for
 *   unknown fields: every key must be a field of its type, as `kubectl
 *   --validate=strict` (field validation Strict) requires. A misspelt field
 *   is otherwise dropped silently by the API server.
 */
import * as k8s from '@kubernetes/client-node';
import type { KubeObject } from './render.ts';

type Validatable = { validate(): void };
type ModelClass = new (data: unknown) => Validatable;

const crdPackages: Record<string, string> = {
  'cert-manager.io': '@kubernetes-models/cert-manager',
  'monitoring.coreos.com': '@kubernetes-models/prometheus-operator',
};

async function modelClass(apiVersion: string, kind: string): Promise<ModelClass> {
  const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
  const base = crdPackages[group] ?? 'kubernetes-models';
  const path = group === '' ? `${base}/${version}/${kind}` : `${base}/${group}/${version}/${kind}`;
  const module = (await import(path)) as Record<string, ModelClass>;
  const found = module[kind];
  if (found === undefined) throw new Error(`no schema for ${apiVersion} ${kind}`);
  return found;
}

/** Problems found; empty when the object is valid. */
export async function schemaProblems(object: KubeObject): Promise<string[]> {
  const problems: string[] = [];
  try {
    const Model = await modelClass(object.apiVersion, object.kind);
    new Model(object).validate();
  } catch (error) {
    problems.push(`${object.kind}/${object.metadata?.name}: ${(error as Error).message}`);
  }
  const typeName = clientTypeName(object);
  if (typeName !== null) unknownFields(object, typeName, object.kind, problems);
  return problems;
}

/** `apps/v1` Deployment → V1Deployment; CRDs have no client model. */
function clientTypeName(object: KubeObject): string | null {
  const version = object.apiVersion.split('/').pop()!;
  const name = `${version.charAt(0).toUpperCase()}${version.slice(1)}${object.kind}`;
  return isModel(name) ? name : null;
}

type AttributeType = { name: string; baseName: string; type: string };

function attributes(typeName: string): AttributeType[] | null {
  const model = (k8s as unknown as Record<string, { getAttributeTypeMap?: () => AttributeType[] }>)[typeName];
  return typeof model?.getAttributeTypeMap === 'function' ? model.getAttributeTypeMap() : null;
}

function isModel(typeName: string): boolean {
  return attributes(typeName) !== null;
}

function unknownFields(value: unknown, type: string, path: string, problems: string[]): void {
  if (value === null || value === undefined) return;
  const array = /^Array<(.+)>$/.exec(type);
  if (array) {
    if (Array.isArray(value))
      for (const [index, item] of value.entries()) unknownFields(item, array[1]!, `${path}[${index}]`, problems);
    return;
  }
  const map = /^\{ \[key: string\]: (.+); \}$/.exec(type);
  if (map) {
    if (typeof value === 'object')
      for (const [key, item] of Object.entries(value)) unknownFields(item, map[1]!, `${path}.${key}`, problems);
    return;
  }
  const fields = attributes(type);
  if (fields === null || typeof value !== 'object' || Array.isArray(value)) return;
  const byName = new Map(fields.map((field) => [field.baseName, field.type]));
  for (const [key, item] of Object.entries(value)) {
    const fieldType = byName.get(key);
    if (fieldType === undefined) problems.push(`${path}: unknown field "${key}" (not in ${type})`);
    else unknownFields(item, fieldType, `${path}.${key}`, problems);
  }
}
