/**
 * The device flow's own endpoints (RFC 8628): the device authorization
 * request (§3.1, §3.2) and the verification page's submission (§3.3), which
 * names the program behind the code, then sends the user on to the upstream
 * IdP once they confirm (§5.4). The token endpoint polls in token-endpoint.ts.
 */
import { authenticateClient, parseClientCredentials } from '../clients/client-authentication.ts';
import { checkResource } from '../authorize/authorization-request.ts';
import { requireGrantType, type OAuthClient } from '../clients/client.ts';
import { deviceCodeGrantType } from '../clients/registration-request.ts';
import { endpointPaths, endpointUrl, type SignInContext } from '../sign-in-context.ts';
import { grantedScope } from '../tokens/scope.ts';
import { formatUserCode } from '../user-code.ts';
import type { DeviceGrant } from './device-grants.ts';

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

/** Who asks behind a pending code: the program and the access it asked for, as the page names them. */
export type DeviceRequester = { client: OAuthClient; scope: string };

export type DeviceSubmitResult =
  | { kind: 'unknown-code' }
  | { kind: 'denied' }
  /** Approve of a code the person has not yet been shown the requester of: show it and ask again. */
  | { kind: 'confirm'; asking: DeviceRequester; userCode: string }
  | { kind: 'upstream'; url: string; state: string };

/**
 * The person's answer on the verification page (RFC 8628 §3.3). Approving
 * goes on to the IdP only once the page has named the program behind this
 * very code and the person confirmed there (`confirmed`); before that the
 * answer is `confirm`, whether the code came in the link or was typed.
 * RFC 8628 §5.4 (remote phishing): anyone may register a client under any
 * name and get a person to type its code, and a person already signed in at
 * the IdP would otherwise pass through without being told who asked.
 * Denying needs no confirmation: it only ever refuses.
 */
export async function deviceSubmit(
  context: SignInContext,
  typed: string,
  action: 'approve' | 'deny',
  confirmed: boolean,
): Promise<DeviceSubmitResult> {
  const found = await context.devices.findPending(typed);
  if (found === null) return { kind: 'unknown-code' };
  if (action === 'deny') {
    await context.devices.deny(found.key);
    return { kind: 'denied' };
  }
  if (!confirmed) {
    const asking = await requesterOf(context, found.grant);
    return asking === null
      ? { kind: 'unknown-code' }
      : { kind: 'confirm', asking, userCode: formatUserCode(found.userCode) };
  }
  const { url, roundTrip } = await context.upstream.begin();
  await context.flows.saveRoundTrip({ ...roundTrip, kind: 'device', deviceKey: found.key });
  return { kind: 'upstream', url, state: roundTrip.state };
}

/** Who asks behind a code still pending (the page names them before anyone signs in); null when there is none. */
export async function describeDeviceCode(context: SignInContext, typed: string): Promise<DeviceRequester | null> {
  const found = await context.devices.findPending(typed);
  return found === null ? null : requesterOf(context, found.grant);
}

/** A grant whose client is gone has no one to name, and could not redeem its code anyway. */
async function requesterOf(context: SignInContext, grant: DeviceGrant): Promise<DeviceRequester | null> {
  const client = await context.clients.find(grant.clientId);
  return client === null ? null : { client, scope: grant.scope };
}
