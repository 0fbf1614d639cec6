/** RFC 7591 registration and RFC 7009 revocation: small JSON endpoints beside the token endpoint. */
import { authenticateClient, parseClientCredentials } from './clients/client-authentication.ts';
import { parseRegistrationRequest } from './clients/registration-request.ts';
import { OAuthError } from './oauth-error.ts';
import type { SignInContext } from './sign-in-context.ts';

/** RFC 7591 §3.2.1: the registered metadata, with `client_id` and, for confidential clients, the secret (shown once). */
export async function registrationEndpoint(context: SignInContext, body: unknown): Promise<Record<string, unknown>> {
  const registration = parseRegistrationRequest(body);
  const registered = await context.registered.register(registration);
  const response: Record<string, unknown> = {
    client_id: registered.client.clientId,
    client_id_issued_at: registered.issuedAt,
    redirect_uris: registered.client.redirectUris,
    grant_types: registered.grantTypes,
    response_types: ['code'],
    token_endpoint_auth_method: registered.client.authMethod,
  };
  if (registration.clientName !== undefined) response.client_name = registration.clientName;
  if (registered.applicationType !== undefined) response.application_type = registered.applicationType;
  if (registered.secret !== undefined) {
    response.client_secret = registered.secret;
    // RFC 7591 §3.2.1: 0 means the secret does not expire.
    response.client_secret_expires_at = 0;
  }
  return response;
}

/**
 * RFC 7009 §2.1: the client authenticates; a refresh token of that client is
 * revoked with its whole family. Unknown tokens, tokens of other clients and
 * access tokens (self-contained JWTs, which expire on their own) get the same
 * 200, so the endpoint tells a caller nothing about tokens it does not own.
 */
export async function revocationEndpoint(
  context: SignInContext,
  authorization: string | undefined,
  form: Readonly<Record<string, string>>,
): Promise<void> {
  const credentials = parseClientCredentials(authorization, form);
  const client = authenticateClient(await context.clients.find(credentials.clientId), credentials);
  const token = form.token;
  if (token === undefined || token === '') throw new OAuthError('invalid_request', 'token is required');
  await context.refreshTokens.revoke(token, client.clientId);
}
