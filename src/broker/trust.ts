import type { BrokerConfig } from './config/index.ts';
import { loadSigningKey, type SigningKey } from './auth/signing-key.ts';
import { remoteJwks } from './auth/remote-jwks.ts';
import type { BearerVerifierOptions } from './auth/verify-bearer.ts';
import { discoveryUrl, unreachableIssuer, UpstreamDiscoveryError } from './auth/upstream/upstream-idp.ts';
import { idTokenBearerClientIds } from './auth/clients/web-clients.ts';

/** What the broker's tokens say about themselves, derived once from the config. */
export type TokenTrust = {
  key: SigningKey;
  /** `iss` of broker tokens: the issuer (management) public URL. */
  issuer: string;
  /** `aud` of broker tokens: the MCP resource URL (RFC 8707). */
  resource: string;
  /** Accepted audiences: the resource, and the issuer URL for tokens minted the Go broker's way. */
  audiences: readonly string[];
};

export function mcpResourceUrl(config: BrokerConfig): string {
  const base = (config.server.mcp.publicURL ?? config.server.publicURL).replace(/\/+$/, '');
  return `${base}/mcp`;
}

export function tokenTrust(config: BrokerConfig): TokenTrust {
  const key = loadSigningKey(config.oidc.brokerSigningKey);
  const resource = mcpResourceUrl(config);
  return { key, issuer: config.server.publicURL, resource, audiences: [resource, config.server.publicURL] };
}

/**
 * The bearer verifier's trust: our own key, and, when an upstream issuer is
 * configured, its JWKS found through OIDC discovery at start-up (a broker that
 * cannot reach its IdP refuses to start rather than reject every user later).
 */
export async function verifierOptions(
  config: BrokerConfig,
  trust: TokenTrust,
  fetchImpl: typeof fetch = fetch,
): Promise<BearerVerifierOptions> {
  const broker = {
    publicKey: trust.key.publicKey,
    kid: trust.key.kid,
    issuer: trust.issuer,
    audiences: trust.audiences,
    idTokenClients: idTokenBearerClientIds(config.webClients),
    webClients: config.webClients.map((client) => client.clientID),
  };
  const { issuer, clientID } = config.oidc;
  if (issuer === undefined || clientID === undefined) return { broker };
  const jwksUri = await discoverJwksUri(issuer, fetchImpl);
  return { broker, upstream: { issuer, clientId: clientID, jwks: remoteJwks(jwksUri) } };
}

async function discoverJwksUri(issuer: string, fetchImpl: typeof fetch): Promise<string> {
  const url = discoveryUrl(issuer);
  let document: unknown;
  try {
    const response = await fetchImpl(url, {
      signal: AbortSignal.timeout(10_000),
      headers: { accept: 'application/json' },
    });
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    document = await response.json();
  } catch (error) {
    throw unreachableIssuer(issuer, error);
  }
  const jwksUri = (document as { jwks_uri?: unknown } | null)?.jwks_uri;
  const discoveredIssuer = (document as { issuer?: unknown } | null)?.issuer;
  // OpenID Connect Discovery §4.3: the issuer in the document MUST equal the one it was fetched for.
  if (discoveredIssuer !== issuer)
    throw new UpstreamDiscoveryError(
      `oidc.issuer: discovery document names issuer ${JSON.stringify(discoveredIssuer)}, expected ${JSON.stringify(issuer)}`,
    );
  if (typeof jwksUri !== 'string')
    throw new UpstreamDiscoveryError(`oidc.issuer: discovery document at ${url} has no jwks_uri`);
  return jwksUri;
}
