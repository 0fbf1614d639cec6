/**
 * Which rendered objects select which pods, evaluated as the API server does
 * (a LabelSelector: every matchLabels pair and every matchExpressions
 * requirement must hold; https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#resources-that-support-set-based-requirements).
 * A Service's spec.selector is a plain map, the matchLabels form.
 */
import type { KubeObject } from './render.ts';

export type Labels = Readonly<Record<string, string>>;

export type LabelSelector = {
  matchLabels?: Labels;
  matchExpressions?: ReadonlyArray<{
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    values?: string[];
  }>;
};

export function selects(selector: LabelSelector, labels: Labels): boolean {
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const { key, operator, values = [] } of selector.matchExpressions ?? []) {
    const value = labels[key];
    const holds =
      operator === 'In'
        ? value !== undefined && values.includes(value)
        : operator === 'NotIn'
          ? value === undefined || !values.includes(value)
          : operator === 'Exists'
            ? value !== undefined
            : value === undefined;
    if (!holds) return false;
  }
  return true;
}

/** The pod template's metadata and spec of a Deployment, StatefulSet, Job or CronJob. */
export function podTemplate(workload: KubeObject): { metadata: { labels: Labels }; spec: any } {
  const spec = workload.spec as any;
  return workload.kind === 'CronJob' ? spec.jobTemplate.spec.template : spec.template;
}

export const podLabels = (workload: KubeObject): Labels => podTemplate(workload).metadata.labels;

/** The NetworkPolicies among `objects` whose podSelector takes in a pod with these labels. */
export function policiesSelecting(objects: readonly KubeObject[], labels: Labels): KubeObject[] {
  return objects.filter(
    (object) => object.kind === 'NetworkPolicy' && selects((object.spec as any).podSelector, labels),
  );
}
