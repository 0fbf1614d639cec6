/**
 * Everything the authorization server's endpoints share, built once at
 * start-up (`createSignInContext` in sign-in-setup.ts). Endpoints are plain
 * functions of this context and their request parameters; the HTTP layer
 * only adapts.
 */
import type { ClientDirectory } from './clients/client-directory.ts';
import type { RegisteredClients } from './clients/registered-clients.ts';
import type { FlowState } from './authorize/flow-state.ts';
import type { DeviceGrants } from './device/device-grants.ts';
import type { SigningKeyRing } from './key-ring.ts';
import type { RefreshTokens } from './tokens/refresh-tokens.ts';
import type { UpstreamIdp } from './upstream/upstream-idp.ts';

export type SignInContext = {
  /** The broker's issuer URL (`server.publicURL`), without a trailing slash. */
  issuer: string;
  /** The MCP resource URL: the audience of every access token (RFC 8707). */
  resource: string;
  ring: SigningKeyRing;
  accessTokenTtlSeconds: number;
  allowDomains: readonly string[];
  upstream: UpstreamIdp;
  clients: ClientDirectory;
  registered: RegisteredClients;
  refreshTokens: RefreshTokens;
  devices: DeviceGrants;
  flows: FlowState;
  /** Whether CIMD client ids are resolved (advertised in metadata). */
  metadataDocuments: boolean;
  /** Whether `/register` (RFC 7591) is open. */
  registration: boolean;
  now: () => number;
};

export const endpointPaths = {
  authorization: '/oauth/authorize',
  token: '/oauth/token',
  /** The Go broker's token endpoint, kept as an alias so its clients keep working. */
  legacyToken: '/device/token',
  deviceAuthorization: '/device/authorize',
  verification: '/device',
  callback: '/auth/callback',
  registration: '/register',
  revocation: '/oauth/revoke',
  userinfo: '/oauth/userinfo',
  legacyRevocation: '/token/revoke',
  jwks: '/.well-known/jwks.json',
} as const;

export function endpointUrl(context: Pick<SignInContext, 'issuer'>, path: string): string {
  return `${context.issuer}${path}`;
}
