/**
 * The API clients the backends use. In a pod, `loadFromDefault` finds the
 * service account token and the API server from the environment; elsewhere it
 * reads `$KUBECONFIG` or `~/.kube/config`.
 */
import { CoordinationV1Api, CoreV1Api, KubeConfig } from '@kubernetes/client-node';

export type KubernetesApis = { kubeConfig: KubeConfig; core: CoreV1Api; coordination: CoordinationV1Api };

export function kubernetesApis(kubeConfig?: KubeConfig): KubernetesApis {
  const config = kubeConfig ?? defaultKubeConfig();
  return {
    kubeConfig: config,
    core: config.makeApiClient(CoreV1Api),
    coordination: config.makeApiClient(CoordinationV1Api),
  };
}

function defaultKubeConfig(): KubeConfig {
  const config = new KubeConfig();
  config.loadFromDefault();
  return config;
}
