/**
 * The browser side of the authorization code flow: the authorization request,
 * the consent decision for clients the operator did not configure (MCP
 * security best practices, "confused deputy": the broker holds one static
 * client at the IdP, so it asks the user before sending them there), and the
 * IdP callback shared with the device flow.
 */
import { redirectDestination, type OAuthClient } from '../clients/client.ts';
import { OAuthError } from '../oauth-error.ts';
import type { SignInContext } from '../sign-in-context.ts';
import { signInIdentityFromClaims, SignInRefused } from '../sign-in-identity.ts';
import { constantTimeEqual } from '../secrets.ts';
import { UpstreamSignInError } from '../upstream/upstream-idp.ts';
import type { SignInFailure } from './sign-in-failure.ts';
import {
  checkAuthorizationParams,
  clientRedirect,
  errorsRedirectAtOnce,
  trustedRedirect,
  UntrustedRequestError,
  type AuthorizationRequest,
} from './authorization-request.ts';

type Params = Readonly<Record<string, string>>;

export type BrowserStep =
  /** Shown to the user, never redirected (the client or redirect URI is not trusted, or the flow expired). */
  /**
   * A page instead of a redirect: `message` is a plain sentence, `next` what to
   * do, `technical` the protocol's words shown small; `detail` is for the
   * operator's log only (why, in words the page does not show).
   */
  | {
      kind: 'page-error';
      title: string;
      message: string;
      status: number;
      next?: string;
      technical?: string;
      detail?: string;
    }
  /** `failure`: the IdP sign-in behind an error redirect, for the operator's log and metrics. */
  | { kind: 'client-redirect'; url: string; failure?: SignInFailure }
  /** To the IdP; `state` binds the round trip to this browser through a cookie. */
  | { kind: 'upstream'; url: string; state: string }
  | { kind: 'consent'; pendingId: string; client: OAuthClient; request: AuthorizationRequest }
  | { kind: 'device-done'; outcome: 'approved' | 'denied' | 'failed'; message: string; failure?: SignInFailure };

export async function authorizeEndpoint(context: SignInContext, params: Params): Promise<BrowserStep> {
  let client: OAuthClient | null;
  let redirectUri: string;
  try {
    client = await context.clients.find(params.client_id ?? '');
    redirectUri = trustedRedirect(client, params);
  } catch (error) {
    if (error instanceof OAuthError)
      return {
        kind: 'page-error',
        title: 'This sign-in link is not valid',
        ...untrustedRequestWords(error.description),
        status: 400,
        ...(error.message === error.description ? {} : { detail: error.message }),
      };
    throw error;
  }
  let request: AuthorizationRequest;
  try {
    request = checkAuthorizationParams(client!, redirectUri, params, context.resource);
  } catch (error) {
    if (!(error instanceof OAuthError) || error instanceof UntrustedRequestError) throw error;
    if (!errorsRedirectAtOnce(client!, redirectUri))
      return {
        kind: 'page-error',
        title: 'This sign-in link is not valid',
        ...refusedRequestWords(
          error.description,
          ` It wanted to send you on to ${redirectDestination(redirectUri)}, an address this service has not checked, so the sign-in stopped here.`,
        ),
        status: 400,
        detail: `${error.error}; not redirected to ${redirectUri}: neither a configured client nor a loopback or private-use redirect`,
      };
    return {
      kind: 'client-redirect',
      url: clientRedirect(redirectUri, context.issuer, {
        error: error.error,
        error_description: error.description,
        state: params.state,
      }),
    };
  }
  if (client!.firstParty) return toUpstream(context, request);
  return { kind: 'consent', pendingId: await context.flows.savePending(request), client: client!, request };
}

const startAgain = 'Go back to the application and start signing in again.';

/**
 * A request refused before its redirect URI is trusted (so the person stays
 * here): what happened in plain words and what to do, the protocol's own
 * words kept as the technical line for whoever debugs the application.
 */
function untrustedRequestWords(description: string): { message: string; next?: string; technical?: string } {
  if (description === 'unknown client_id')
    return {
      message:
        'This sign-in service does not know the application that sent you here: its registration may have expired, or it was made with another server.',
      next: `${startAgain} It registers itself again.`,
      technical: description,
    };
  if (description.startsWith('redirect_uri'))
    return {
      message:
        'The application asked to send you back to an address it did not register, so the sign-in stopped here to keep your account safe.',
      next: `${startAgain} If this happens again, tell the application's developer.`,
      technical: description,
    };
  // Already sentences for people, next step included (a metadata document this broker cannot fetch).
  if (description.startsWith('the app identified itself')) return { message: `T${description.slice(1)}.` };
  return refusedRequestWords(description);
}

/** A request this service cannot accept, in plain words; `where` says where the person was not sent. */
function refusedRequestWords(description: string, where = ''): { message: string; next: string; technical: string } {
  return {
    message: `The application that sent you here made a sign-in request this service cannot accept.${where}`,
    next: `${startAgain} If this happens again, tell the application's developer what the sign-in service saw.`,
    technical: description,
  };
}

export async function consentEndpoint(
  context: SignInContext,
  pendingId: string,
  decision: 'approve' | 'deny',
): Promise<BrowserStep> {
  const request = await context.flows.takePending(pendingId);
  if (request === null)
    return {
      kind: 'page-error',
      title: 'This sign-in has expired',
      message: 'The page was open too long, or its form was already sent.',
      next: startAgain,
      status: 400,
    };
  if (decision === 'deny') {
    return {
      kind: 'client-redirect',
      url: clientRedirect(request.redirectUri, context.issuer, {
        error: 'access_denied',
        error_description: 'the user refused access',
        state: request.state,
      }),
    };
  }
  return toUpstream(context, request);
}

async function toUpstream(context: SignInContext, request: AuthorizationRequest): Promise<BrowserStep> {
  const { url, roundTrip } = await context.upstream.begin();
  await context.flows.saveRoundTrip({ ...roundTrip, kind: 'authorize', request });
  return { kind: 'upstream', url, state: roundTrip.state };
}

/** `GET /auth/callback`: `boundState` is the state cookie this browser was given on the way out. */
export async function callbackEndpoint(
  context: SignInContext,
  callbackUrl: URL,
  boundState: string | undefined,
): Promise<BrowserStep> {
  const state = callbackUrl.searchParams.get('state') ?? '';
  const expired = {
    kind: 'page-error',
    title: 'This sign-in has expired',
    message: 'The sign-in took too long, or this link was already used.',
    next: 'Start again from your application or terminal.',
    status: 400,
  } as const;
  if (state === '') return expired;
  // Login CSRF: the callback must come back to the browser that left.
  if (boundState === undefined || !constantTimeEqual(boundState, state))
    return {
      kind: 'page-error',
      title: 'Sign-in was started elsewhere',
      message: 'This sign-in began in another browser (or its cookie was cleared), so it cannot finish here.',
      next: 'Start again from your application or terminal, in this browser.',
      status: 400,
    };
  const roundTrip = await context.flows.takeRoundTrip(state);
  if (roundTrip === null) return expired;
  const result = await signIn(context, callbackUrl, roundTrip);
  if (roundTrip.kind === 'device') return finishDevice(context, roundTrip.deviceKey, result);
  const { request } = roundTrip;
  if (result.ok) {
    const code = await context.flows.issueCode(request, result.identity, result.authTime);
    return {
      kind: 'client-redirect',
      url: clientRedirect(request.redirectUri, context.issuer, { code, state: request.state }),
    };
  }
  const error =
    result.failure === 'failed'
      ? { error: 'server_error', error_description: 'identity provider sign-in failed' }
      : { error: 'access_denied', error_description: result.description };
  return {
    kind: 'client-redirect',
    url: clientRedirect(request.redirectUri, context.issuer, { ...error, state: request.state }),
    failure: result.report,
  };
}

/** `failure` and `description` are what the client and the user are told; `report` is for the operator. */
type SignInResult =
  | { ok: true; identity: ReturnType<typeof signInIdentityFromClaims>; authTime: number }
  | { ok: false; failure: 'failed' | 'denied'; description: string; report: SignInFailure };

async function signIn(
  context: SignInContext,
  callbackUrl: URL,
  roundTrip: Parameters<SignInContext['upstream']['finish']>[1],
): Promise<SignInResult> {
  try {
    const claims = await context.upstream.finish(callbackUrl, roundTrip);
    const identity = signInIdentityFromClaims(claims, context.allowDomains);
    const authTime = typeof claims.auth_time === 'number' ? claims.auth_time : Math.floor(context.now() / 1000);
    return { ok: true, identity, authTime };
  } catch (error) {
    if (error instanceof SignInRefused)
      return {
        ok: false,
        failure: 'denied',
        description: error.description,
        report: { kind: 'refused', detail: error.reason },
      };
    if (error instanceof UpstreamSignInError)
      return {
        ok: false,
        failure: error.kind,
        description:
          error.kind === 'denied' ? 'the identity provider refused the sign-in' : 'identity provider sign-in failed',
        report: { kind: error.kind, detail: error.message },
      };
    throw error;
  }
}

/** RFC 8628 §3.5 (as the Go broker's `device.go`): a refusal denies the grant; a transient failure leaves it pending so the user can retry. */
async function finishDevice(context: SignInContext, deviceKey: string, result: SignInResult): Promise<BrowserStep> {
  if (result.ok) {
    const approved = await context.devices.approve(deviceKey, result.identity);
    return approved
      ? {
          kind: 'device-done',
          outcome: 'approved',
          message: `Signed in as ${result.identity.email}. You can close this window and return to your terminal.`,
        }
      : {
          kind: 'device-done',
          outcome: 'failed',
          message: 'This code has expired or was already used. Start again on your device.',
        };
  }
  if (result.failure === 'failed')
    return {
      kind: 'device-done',
      outcome: 'failed',
      message: 'Sign-in could not be completed. Enter the code again to retry.',
      failure: result.report,
    };
  await context.devices.deny(deviceKey);
  return {
    kind: 'device-done',
    outcome: 'denied',
    message: `Sign-in refused: ${result.description}. The device was not signed in.`,
    failure: result.report,
  };
}
