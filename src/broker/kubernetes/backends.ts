/**
 * The Kubernetes storage backend in one call, for `storage.backend:
 * kubernetes`: the write-token store and tokens sink the world gateway takes
 * (`WriteTokenBackend`), and the shared state store of the sign-in service.
 */
import type { BrokerConfig } from '../config/index.ts';
import type { StateDocumentStore } from '../state/document-store.ts';
import type { WorldTokensSink } from '../worlds/write-tokens/sink.ts';
import type { WriteTokenStore } from '../worlds/write-tokens/store.ts';
import { kubernetesApis, type KubernetesApis } from './kube-clients.ts';
import { defaultDocumentLocation, SecretStateStore } from './secret-state-store.ts';
import { SecretTokensSink } from './secret-tokens-sink.ts';
import { SecretWriteTokenStore } from './secret-write-token-store.ts';

export type KubernetesBackends = {
  apis: KubernetesApis;
  writeTokens: { store: WriteTokenStore; sink: WorldTokensSink };
  state: StateDocumentStore;
};

export function kubernetesBackends(config: BrokerConfig, apis: KubernetesApis = kubernetesApis()): KubernetesBackends {
  const namespace = config.server.brokerNamespace;
  if (namespace === undefined) throw new RangeError('storage.backend kubernetes needs server.brokerNamespace');
  return {
    apis,
    writeTokens: {
      store: new SecretWriteTokenStore({ core: apis.core, namespace }),
      sink: new SecretTokensSink({ core: apis.core }),
    },
    state: new SecretStateStore({
      core: apis.core,
      namespace,
      locate: defaultDocumentLocation(config.server.refreshTokensSecret),
    }),
  };
}
