import type { OAuthClient } from './client.ts';

export type WebClientConfig = {
  clientID: string;
  clientSecretHash: string;
  redirectURIs: readonly string[];
  name?: string | undefined;
  /** The token the client presents to `/mcp` (default `access_token`). */
  bearer?: 'access_token' | 'id_token' | undefined;
};

/**
 * Confidential web clients from `webClients[]` (Go broker `client_auth.go`): the secret is
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
      grantTypes: ['authorization_code', 'refresh_token'],
      secretHash: config.clientSecretHash,
      firstParty: true,
      ...(config.bearer === 'id_token' ? { idTokenBearer: true } : {}),
    });
  }
  return clients;
}

/** The web clients whose ID tokens the gateway accepts as bearers, each for itself only. */
export function idTokenBearerClientIds(configs: readonly WebClientConfig[]): string[] {
  return configs.filter((config) => config.bearer === 'id_token').map((config) => config.clientID);
}
