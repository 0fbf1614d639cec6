/**
 * Every Kubernetes API call the broker's backends make, as data. The broker
 * chart's RBAC is tested against this list in both directions (no call
 * without a rule, no rule without a call), and the fake-API-server tests check
 * that every request the backends send is listed here. Change a backend's
 * calls and this list together.
 */
export type ApiCallScope =
  /** The broker's own namespace (`server.brokerNamespace`). */
  | 'broker-namespace'
  /** The namespace of a configured world (`worlds[].namespace`). */
  | 'world-namespace'
  /** Every namespace discovery watches (`discovery.namespaces`, or all). */
  | 'discovery-namespaces';

/**
 * Which objects a call touches. `resourceNames` can restrict get/update but
 * not create, list or watch (Kubernetes RBAC), so those are `any`.
 */
export type ApiCallObjects =
  | 'any'
  /** `demarkus-broker-write-token-<world>` for each configured world. */
  | 'write-token-secrets'
  /** `server.refreshTokensSecret` and the `demarkus-broker-state-*` Secrets. */
  | 'state-secrets'
  /** `sweeper.leaseName`. */
  | 'sweeper-lease'
  /** `worlds[].tokensSecret`. */
  | 'world-tokens-secret';

export type KubernetesApiCall = {
  scope: ApiCallScope;
  apiGroup: '' | 'coordination.k8s.io';
  resource: 'secrets' | 'leases' | 'services';
  verbs: readonly ('get' | 'update' | 'create' | 'list' | 'watch')[];
  objects: ApiCallObjects;
  /** The module that makes the call. */
  by: string;
  /** Only made when the feature is on: `discovery.enabled`, or the sweeper (not `sweeper.disabled`). */
  optional?: 'discovery' | 'sweeper';
};

export const kubernetesApiCalls: readonly KubernetesApiCall[] = [
  {
    scope: 'broker-namespace',
    apiGroup: '',
    resource: 'secrets',
    verbs: ['get', 'update'],
    objects: 'write-token-secrets',
    by: 'secret-write-token-store.ts',
  },
  {
    scope: 'broker-namespace',
    apiGroup: '',
    resource: 'secrets',
    verbs: ['get', 'update'],
    objects: 'state-secrets',
    by: 'secret-state-store.ts',
  },
  {
    scope: 'broker-namespace',
    apiGroup: '',
    resource: 'secrets',
    verbs: ['create'],
    objects: 'any',
    by: 'secret-write-token-store.ts, secret-state-store.ts',
  },
  {
    scope: 'broker-namespace',
    apiGroup: 'coordination.k8s.io',
    resource: 'leases',
    verbs: ['get', 'update'],
    objects: 'sweeper-lease',
    by: 'lease-elector.ts',
    optional: 'sweeper',
  },
  {
    scope: 'broker-namespace',
    apiGroup: 'coordination.k8s.io',
    resource: 'leases',
    verbs: ['create'],
    objects: 'any',
    by: 'lease-elector.ts',
    optional: 'sweeper',
  },
  {
    scope: 'world-namespace',
    apiGroup: '',
    resource: 'secrets',
    verbs: ['get', 'update'],
    objects: 'world-tokens-secret',
    by: 'secret-tokens-sink.ts',
  },
  {
    scope: 'discovery-namespaces',
    apiGroup: '',
    resource: 'services',
    verbs: ['list', 'watch'],
    objects: 'any',
    by: 'world-discovery.ts',
    optional: 'discovery',
  },
];

/**
 * The world chart's tokens bootstrap Job (world-tokens-bootstrap.ts), in the
 * world's namespace: read its two Secrets, create them when absent.
 */
export type BootstrapApiCall = {
  apiGroup: '';
  resource: 'secrets';
  verbs: readonly ('get' | 'create')[];
  objects: 'any' | 'bootstrap-secrets';
};

export const worldBootstrapApiCalls: readonly BootstrapApiCall[] = [
  { apiGroup: '', resource: 'secrets', verbs: ['get'], objects: 'bootstrap-secrets' },
  { apiGroup: '', resource: 'secrets', verbs: ['create'], objects: 'any' },
];

/**
 * Secrets behind `state-secrets`, given `server.refreshTokensSecret`; the
 * last holds the replicas' record of which Service serves each discovered
 * world name (served-names.ts).
 */
export function stateSecretNames(refreshTokensSecret: string): string[] {
  return [
    refreshTokensSecret,
    'demarkus-broker-state-registered-clients',
    'demarkus-broker-state-signing-keys',
    'demarkus-broker-state-discovery-served-names',
  ];
}
