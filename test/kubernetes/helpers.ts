/**
 * Shared pieces of the fake-API-server tests: API clients bound to a fake
 * server, a wait-until helper (a condition, never a duration, decides), and
 * the check that every request a backend sent is one `kubernetesApiCalls`
 * declares (the list the chart's RBAC is tested against).
 */
import assert from 'node:assert/strict';
import { CoordinationV1Api, CoreV1Api } from '@kubernetes/client-node';
import { kubernetesApiCalls, stateSecretNames, type KubernetesApiCall } from '../../src/broker/kubernetes/index.ts';
import { writeTokenSecretName } from '../../src/broker/kubernetes/index.ts';
import type { FakeApiServer, RecordedRequest } from './fake-api/server.ts';

export function apis(server: FakeApiServer, identity = 'broker') {
  const kubeConfig = server.kubeConfig(identity);
  return {
    kubeConfig,
    core: kubeConfig.makeApiClient(CoreV1Api),
    coordination: kubeConfig.makeApiClient(CoordinationV1Api),
  };
}

/** Polls `condition` until it holds; fails after `timeoutMs` (a safety net for a hung test, not a measured bound). */
export async function eventually(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 10_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

export type CallContext = {
  brokerNamespace: string;
  /** world name → its namespace and tokens Secret. */
  worlds: Record<string, { namespace: string; tokensSecret: string }>;
  refreshTokensSecret?: string;
  leaseName?: string;
  /** `null`: discovery watches all namespaces. */
  discoveryNamespaces?: readonly string[] | null;
};

/** Every request the backends sent matches a declared call (scope, group, resource, verb and object). */
export function assertOnlyDeclaredCalls(requests: readonly RecordedRequest[], context: CallContext): void {
  for (const request of requests) {
    const declared = kubernetesApiCalls.find((call) => covers(call, request, context));
    assert.ok(
      declared,
      `undeclared API call: ${request.verb} ${request.apiGroup || 'core'}/${request.resource} ${request.namespace ?? '*'}/${request.name ?? '*'}`,
    );
  }
}

function covers(call: KubernetesApiCall, request: RecordedRequest, context: CallContext): boolean {
  if (
    call.apiGroup !== request.apiGroup ||
    call.resource !== request.resource ||
    !call.verbs.includes(request.verb as never)
  )
    return false;
  const worlds = Object.values(context.worlds);
  switch (call.scope) {
    case 'broker-namespace':
      if (request.namespace !== context.brokerNamespace) return false;
      break;
    case 'world-namespace':
      if (!worlds.some((world) => world.namespace === request.namespace)) return false;
      break;
    case 'discovery-namespaces':
      if (context.discoveryNamespaces === undefined) return false;
      if (
        context.discoveryNamespaces === null
          ? request.namespace !== null
          : !context.discoveryNamespaces.includes(request.namespace ?? '')
      )
        return false;
  }
  return objectAllowed(call, request, context);
}

function objectAllowed(call: KubernetesApiCall, request: RecordedRequest, context: CallContext): boolean {
  const name = request.name ?? '';
  switch (call.objects) {
    case 'any':
      return true;
    case 'write-token-secrets':
      return Object.keys(context.worlds).map(writeTokenSecretName).includes(name);
    case 'state-secrets':
      return stateSecretNames(context.refreshTokensSecret ?? 'demarkus-broker-refresh-tokens').includes(name);
    case 'sweeper-lease':
      return name === (context.leaseName ?? 'demarkus-broker-sweeper');
    case 'world-tokens-secret':
      return Object.values(context.worlds).some(
        (world) => world.namespace === request.namespace && world.tokensSecret === name,
      );
  }
}
