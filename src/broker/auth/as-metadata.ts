/**
 * RFC 8414 authorization server metadata, also served as OpenID Connect
 * Discovery (MCP authorization 2025-11-25 lets clients try either). The
 * `issuer` equals the URL the document is fetched under (RFC 8414 §3.3).
 */
import { deviceCodeGrantType, supportedAuthMethods } from './clients/registration-request.ts';
import { endpointPaths, endpointUrl, type SignInContext } from './sign-in-context.ts';
import { supportedScopes } from './tokens/scope.ts';

export function authorizationServerMetadata(
  context: Pick<SignInContext, 'issuer' | 'metadataDocuments' | 'registration'>,
): Record<string, unknown> {
  const url = (path: string) => endpointUrl(context, path);
  return {
    issuer: context.issuer,
    authorization_endpoint: url(endpointPaths.authorization),
    token_endpoint: url(endpointPaths.token),
    device_authorization_endpoint: url(endpointPaths.deviceAuthorization),
    ...(context.registration ? { registration_endpoint: url(endpointPaths.registration) } : {}),
    revocation_endpoint: url(endpointPaths.revocation),
    jwks_uri: url(endpointPaths.jwks),
    userinfo_endpoint: url(endpointPaths.userinfo),
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token', deviceCodeGrantType],
    // OAuth 2.1 §4.1.1: S256 only; `plain` is refused.
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: [...supportedAuthMethods],
    revocation_endpoint_auth_methods_supported: [...supportedAuthMethods],
    scopes_supported: supportedScopes.filter((s) => s !== 'offline_access'),
    // RFC 9207 §3: the authorization response carries `iss`.
    authorization_response_iss_parameter_supported: true,
    client_id_metadata_document_supported: context.metadataDocuments,
    subject_types_supported: ['public'],
    id_token_signing_alg_values_supported: ['ES256'],
    claims_supported: [
      'sub',
      'iss',
      'aud',
      'exp',
      'iat',
      'auth_time',
      'nonce',
      'email',
      'email_verified',
      'groups',
      'hd',
    ],
  };
}
