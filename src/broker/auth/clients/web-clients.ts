import type { OAuthClient } from './client.ts';

export type WebClientConfig = {
  clientID: string;
  clientSecretHash: string;
  redirectURIs: readonly string[];
  name?: string | undefined;
};

/**
 * Confidential web clients from `webClients[]` (inventory §2.5): the secret is
 * known only as its SHA-256, redirect URIs are exact https URLs, and both
 * `client_secret_basic` and `client_secret_post` are accepted.
 */
export function webClientsFromConfig(configs: readonly WebClientConfig[]): Map<string, OAuthClient> {
  const clients = new Map<string, OAuthClient>();
  for (const config of configs) {
    clients.set(config.clientID, {
      clientId: config.clientID,
      kind: 'web',
      name: config.name ?? config.clientID,
      redirectUris: [...config.redirectURIs],
      authMethod: 'client_secret_basic',
      secretHash: config.clientSecretHash,
      firstParty: true,
    });
  }
  return clients;
}
