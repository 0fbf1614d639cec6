/**
 * Builds the sign-in context from the broker config: the upstream IdP (by
 * discovery, so a broker that cannot reach its IdP fails at start-up), the
 * client sources, and the stores.
 */
import type { BrokerConfig } from '../config/index.ts';
import type { EphemeralStore, StateDocumentStore } from '../state/index.ts';
import { FlowState } from './authorize/flow-state.ts';
import { ClientDirectory } from './clients/client-directory.ts';
import { ClientMetadataDocuments } from './clients/metadata-document.ts';
import { RegisteredClients } from './clients/registered-clients.ts';
import { webClientsFromConfig } from './clients/web-clients.ts';
import { DeviceGrants } from './device/device-grants.ts';
import type { SigningKeyRing } from './key-ring.ts';
import { endpointPaths, type SignInContext } from './sign-in-context.ts';
import { RefreshTokens } from './tokens/refresh-tokens.ts';
import { discoverUpstreamIdp, type UpstreamIdp } from './upstream/upstream-idp.ts';

export type SignInSetup = {
  config: BrokerConfig;
  /** The MCP resource URL (trust.resource). */
  resource: string;
  ring: SigningKeyRing;
  durable: StateDocumentStore;
  ephemeral: EphemeralStore;
  /** Injected in tests; discovered from `oidc.issuer` otherwise. */
  upstream?: UpstreamIdp;
  now?: () => number;
};

/** Where the IdP sends users back: `oidc.redirectURL`, or the issuer's `/auth/callback`. */
export function upstreamRedirectUri(config: BrokerConfig): string {
  return config.oidc.redirectURL ?? `${config.server.publicURL}${endpointPaths.callback}`;
}

export async function createSignInContext(setup: SignInSetup): Promise<SignInContext> {
  const { config } = setup;
  const now = setup.now ?? Date.now;
  const upstream = setup.upstream ?? (await discoverUpstream(config));
  const refreshTokens = new RefreshTokens(setup.durable, {
    ttlMs: config.server.refreshTokenTTL,
    maxFamilies: config.oauth.maxRefreshTokenFamilies,
    maxFamiliesPerUser: config.oauth.maxRefreshTokenFamiliesPerUser,
    now,
  });
  const registered = new RegisteredClients(setup.durable, setup.ephemeral, {
    maxClients: config.oauth.registration.maxClients,
    unusedTtlMs: config.oauth.registration.unusedTtl,
    liveClients: () => refreshTokens.clientsWithLiveFamilies(),
    now,
  });
  const cimd = config.oauth.clientMetadataDocuments;
  const documents = cimd.disabled ? null : new ClientMetadataDocuments({ allowLoopback: cimd.allowLoopback, now });
  return {
    issuer: config.server.publicURL,
    resource: setup.resource,
    ring: setup.ring,
    accessTokenTtlSeconds: Math.max(1, Math.round(config.server.idTokenTTL / 1000)),
    allowDomains: config.oidc.allowDomains,
    upstream,
    clients: new ClientDirectory({ web: webClientsFromConfig(config.webClients), registered, documents }),
    registered,
    refreshTokens,
    devices: new DeviceGrants(setup.ephemeral, {
      ttlMs: config.server.deviceCodeTTL,
      intervalMs: config.server.devicePollInterval,
      now,
    }),
    flows: new FlowState(setup.ephemeral, {
      pendingTtlMs: 10 * 60_000,
      roundTripTtlMs: config.server.stateTTL,
      codeTtlMs: 60_000,
      now,
    }),
    metadataDocuments: documents !== null,
    registration: !config.oauth.registration.disabled,
    now,
  };
}

async function discoverUpstream(config: BrokerConfig): Promise<UpstreamIdp> {
  const { issuer, clientID, clientSecret } = config.oidc;
  if (issuer === undefined || clientID === undefined)
    throw new RangeError('sign-in needs oidc.issuer and oidc.clientID');
  return discoverUpstreamIdp({
    issuer,
    clientId: clientID,
    redirectUri: upstreamRedirectUri(config),
    ...(clientSecret === undefined ? {} : { clientSecret }),
  });
}
