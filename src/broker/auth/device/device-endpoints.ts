/**
 * The device flow's own endpoints (RFC 8628): the device authorization
 * request (§3.1, §3.2) and the verification page's submission (§3.3), which
 * sends the user on to the upstream IdP. The token endpoint polls in
 * token-endpoint.ts.
 */
import { authenticateClient, parseClientCredentials } from '../clients/client-authentication.ts';
import { checkResource } from '../authorize/authorization-request.ts';
import { requireGrantType } from '../clients/client.ts';
import { deviceCodeGrantType } from '../clients/registration-request.ts';
import { endpointPaths, endpointUrl, type SignInContext } from '../sign-in-context.ts';
import { grantedScope } from '../tokens/scope.ts';
import { formatUserCode } from '../user-code.ts';

export type DeviceAuthorizationResponse = {
  device_code: string;
  user_code: string;
  verification_uri: string;
  verification_uri_complete: string;
  expires_in: number;
  interval: number;
};

export async function deviceAuthorizationEndpoint(
  context: SignInContext,
  authorization: string | undefined,
  form: Readonly<Record<string, string>>,
): Promise<DeviceAuthorizationResponse> {
  const credentials = parseClientCredentials(authorization, form);
  const client = authenticateClient(await context.clients.find(credentials.clientId), credentials);
  requireGrantType(client, deviceCodeGrantType);
  checkResource(form.resource, context.resource);
  const { deviceCode, userCode } = await context.devices.start({
    clientId: client.clientId,
    scope: grantedScope(form.scope),
    resource: context.resource,
  });
  const verification = endpointUrl(context, endpointPaths.verification);
  const shown = formatUserCode(userCode);
  return {
    device_code: deviceCode,
    user_code: shown,
    verification_uri: verification,
    verification_uri_complete: `${verification}?user_code=${encodeURIComponent(shown)}`,
    expires_in: Math.floor(context.devices.ttlMs / 1000),
    // Seconds; a sub-second test interval stays fractional rather than rounding to 0.
    interval: context.devices.intervalMs / 1000,
  };
}

export type DeviceSubmitResult =
  | { kind: 'unknown-code' }
  | { kind: 'denied' }
  | { kind: 'upstream'; url: string; state: string; clientName: string };

/** The user confirmed (or refused) the code on the verification page. */
export async function deviceSubmit(
  context: SignInContext,
  typed: string,
  action: 'approve' | 'deny',
): Promise<DeviceSubmitResult> {
  const found = await context.devices.findPending(typed);
  if (found === null) return { kind: 'unknown-code' };
  if (action === 'deny') {
    await context.devices.deny(found.key);
    return { kind: 'denied' };
  }
  const { url, roundTrip } = await context.upstream.begin();
  await context.flows.saveRoundTrip({ ...roundTrip, kind: 'device', deviceKey: found.key });
  const client = await context.clients.find(found.grant.clientId).catch(() => null);
  return { kind: 'upstream', url, state: roundTrip.state, clientName: client?.name ?? found.grant.clientId };
}

/** Describes the pending grant behind a typed code, for the confirmation text; null when there is none. */
export async function describeDeviceCode(
  context: SignInContext,
  typed: string,
): Promise<{ clientName: string } | null> {
  const found = await context.devices.findPending(typed);
  if (found === null) return null;
  const client = await context.clients.find(found.grant.clientId).catch(() => null);
  return { clientName: client?.name ?? found.grant.clientId };
}
