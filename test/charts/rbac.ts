/**
 * RBAC as sets of (namespace, apiGroup, resource, verb, object name) tuples:
 * what the rendered Roles grant the broker's ServiceAccount, and what the
 * calls in `kubernetesApiCalls` need for a given config. The suites compare
 * the two for equality: no call without a rule, no rule without a call.
 */
import { kubernetesApiCalls, stateSecretNames, writeTokenSecretName } from '../../src/broker/kubernetes/index.ts';
import type { KubeObject } from './render.ts';

type Rule = { apiGroups?: string[]; resources?: string[]; verbs?: string[]; resourceNames?: string[] };
type Subject = { kind: string; name: string; namespace?: string };

export function tuple(namespace: string, apiGroup: string, resource: string, verb: string, name: string): string {
  return `${namespace} ${apiGroup || 'core'}/${resource} ${verb} ${name}`;
}

/** Everything bound to `serviceAccount` through RoleBindings and ClusterRoleBindings in `objects`. */
export function granted(
  objects: readonly KubeObject[],
  serviceAccount: { namespace: string; name: string },
): Set<string> {
  const out = new Set<string>();
  const bindsUs = (binding: KubeObject) =>
    ((binding.subjects ?? []) as Subject[]).some(
      (subject) =>
        subject.kind === 'ServiceAccount' &&
        subject.name === serviceAccount.name &&
        subject.namespace === serviceAccount.namespace,
    );
  for (const binding of objects.filter(
    (object) => (object.kind === 'RoleBinding' || object.kind === 'ClusterRoleBinding') && bindsUs(object),
  )) {
    const ref = binding.roleRef as { kind: string; name: string };
    const cluster = binding.kind === 'ClusterRoleBinding';
    const namespace = cluster ? '*' : binding.metadata.namespace!;
    const role = objects.find(
      (object) =>
        object.kind === ref.kind &&
        object.metadata.name === ref.name &&
        (ref.kind === 'ClusterRole' || object.metadata.namespace === namespace),
    );
    if (role === undefined)
      throw new Error(`${binding.kind} ${binding.metadata.name} refers to a missing ${ref.kind} ${ref.name}`);
    for (const rule of (role.rules ?? []) as Rule[]) {
      for (const apiGroup of rule.apiGroups ?? [])
        for (const resource of rule.resources ?? [])
          for (const verb of rule.verbs ?? []) {
            for (const name of rule.resourceNames ?? ['*']) out.add(tuple(namespace, apiGroup, resource, verb, name));
          }
    }
  }
  return out;
}

export type RbacContext = {
  brokerNamespace: string;
  worlds: readonly { name: string; namespace: string; tokensSecret: string }[];
  refreshTokensSecret: string;
  leaseName: string;
  sweeper: boolean;
  /** `null`: discovery off; `'all'`: cluster-wide. */
  discovery: null | 'all' | readonly string[];
};

/** What the backends' calls need under this config. */
export function needed(context: RbacContext): Set<string> {
  const out = new Set<string>();
  for (const call of kubernetesApiCalls) {
    if (call.optional === 'discovery' && context.discovery === null) continue;
    if (call.optional === 'sweeper' && !context.sweeper) continue;
    for (const verb of call.verbs) {
      for (const [namespace, name] of targets(call.scope, call.objects, context))
        out.add(tuple(namespace, call.apiGroup, call.resource, verb, name));
    }
  }
  return out;
}

function targets(scope: string, objects: string, context: RbacContext): Array<[string, string]> {
  if (scope === 'world-namespace') return context.worlds.map((world) => [world.namespace, world.tokensSecret]);
  if (scope === 'discovery-namespaces') {
    const namespaces = context.discovery === 'all' ? ['*'] : [...new Set(context.discovery ?? [])];
    return namespaces.map((namespace) => [namespace, '*']);
  }
  const names =
    objects === 'write-token-secrets'
      ? context.worlds.map((world) => writeTokenSecretName(world.name))
      : objects === 'state-secrets'
        ? stateSecretNames(context.refreshTokensSecret)
        : objects === 'sweeper-lease'
          ? [context.leaseName]
          : ['*'];
  return names.map((name) => [context.brokerNamespace, name]);
}

export function difference(a: Set<string>, b: Set<string>): string[] {
  return [...a].filter((item) => !b.has(item)).sort();
}
