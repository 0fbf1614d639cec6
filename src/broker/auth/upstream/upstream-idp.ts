/**
 * The broker as relying party of the upstream OIDC issuer, on openid-client:
 * discovery at start-up, then authorization code + PKCE (S256) + nonce +
 * state toward the IdP. openid-client checks `iss`, `aud`, `exp`, `iat`,
 * `azp` and the nonce of the ID token, but verifies its signature only with
 * `enableNonRepudiationChecks`, which is therefore always on.
 */
import * as oidc from 'openid-client';
import { CodedError, errorWithCode } from '../../../errors/coded-error.ts';
import { fetchFailureReason, isNetworkFailure } from '../../../errors/fetch-failure.ts';
import { isLoopbackUrlHost } from '../../../transport/loopback.ts';

export type UpstreamIdpOptions = {
  issuer: string;
  clientId: string;
  /** Confidential client at the IdP (client_secret_basic); public when absent. */
  clientSecret?: string;
  /** The broker's callback, registered at the IdP (`oidc.redirectURL`). */
  redirectUri: string;
  scopes?: readonly string[];
  /** Per-request timeout toward the IdP, seconds. */
  timeoutSeconds?: number;
  fetch?: typeof fetch;
};

/** What the broker remembers between sending the user to the IdP and the callback. */
export type UpstreamRoundTrip = { state: string; nonce: string; codeVerifier: string };

export type UpstreamFailureKind =
  /** The IdP answered the user with an error (`?error=access_denied`, …): a real refusal. */
  | 'denied'
  /** Exchange or validation failed (network, token endpoint, ID token): not the user's refusal. */
  | 'failed';

export class UpstreamSignInError extends CodedError<'ERR_UPSTREAM_SIGN_IN'> {
  readonly kind: UpstreamFailureKind;
  constructor(kind: UpstreamFailureKind, message: string, options?: { cause?: unknown }) {
    super('ERR_UPSTREAM_SIGN_IN', message, options);
    this.kind = kind;
  }
}

/** The broker cannot start: its IdP's discovery document cannot be fetched or is unusable. */
export class UpstreamDiscoveryError extends errorWithCode('ERR_UPSTREAM_DISCOVERY') {}

/** Where the broker fetches the IdP's OpenID Connect discovery document (Discovery 1.0 §4). */
export function discoveryUrl(issuer: string): string {
  return `${issuer.replace(/\/+$/, '')}/.well-known/openid-configuration`;
}

/**
 * A discovery request that failed, said as what failed (the URL), which key
 * sets it, why, and what to do. A loopback issuer is nearly always the
 * development IdP that `npm start` runs beside the broker and that
 * `demarkus-broker broker` does not start.
 */
export function unreachableIssuer(issuer: string, error: unknown): UpstreamDiscoveryError {
  const loopback = URL.canParse(issuer) && isLoopbackUrlHost(new URL(issuer).hostname);
  const next = loopback
    ? "A loopback issuer is usually the development IdP that npm start (demarkus-broker dev) runs beside the broker, and `broker` does not start it: run npm start for the local stack, or set oidc.issuer to your organisation's OpenID provider."
    : 'Check oidc.issuer and that the broker can reach it (DNS, proxy, egress rules), then start the broker again.';
  return new UpstreamDiscoveryError(
    `cannot reach the OIDC issuer (oidc.issuer): GET ${discoveryUrl(issuer)}: ${fetchFailureReason(error)}. ${next}`,
    { cause: error },
  );
}

export interface UpstreamIdp {
  readonly issuer: string;
  /** Origin of the IdP's authorization endpoint: where the sign-in pages' forms lead (CSP `form-action`). */
  readonly authorizationOrigin: string;
  /** A fresh round trip and the IdP URL to send the user's browser to. */
  begin(): Promise<{ url: string; roundTrip: UpstreamRoundTrip }>;
  /** The callback URL as received → the verified ID token's claims, or UpstreamSignInError. */
  finish(callbackUrl: URL, roundTrip: UpstreamRoundTrip): Promise<Record<string, unknown>>;
}

const defaultScopes = ['openid', 'email', 'profile'];

export async function discoverUpstreamIdp(options: UpstreamIdpOptions): Promise<UpstreamIdp> {
  const auth = options.clientSecret === undefined ? oidc.None() : oidc.ClientSecretBasic(options.clientSecret);
  const execute = [oidc.enableNonRepudiationChecks];
  // Config validation admits plain http only for loopback issuers (development and tests).
  if (new URL(options.issuer).protocol === 'http:') execute.push(oidc.allowInsecureRequests);
  const config = await oidc
    .discovery(new URL(options.issuer), options.clientId, { redirect_uris: [options.redirectUri] }, auth, {
      execute,
      timeout: options.timeoutSeconds ?? 10,
      ...(options.fetch ? { [oidc.customFetch]: options.fetch } : {}),
    })
    .catch((error: unknown) => {
      throw unreachableIssuer(options.issuer, error);
    });
  const scope = (options.scopes ?? defaultScopes).join(' ');
  return {
    issuer: config.serverMetadata().issuer,
    authorizationOrigin: new URL(config.serverMetadata().authorization_endpoint ?? options.issuer).origin,
    async begin() {
      const roundTrip = {
        state: oidc.randomState(),
        nonce: oidc.randomNonce(),
        codeVerifier: oidc.randomPKCECodeVerifier(),
      };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: options.redirectUri,
        scope,
        state: roundTrip.state,
        nonce: roundTrip.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(roundTrip.codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, roundTrip };
    },
    async finish(callbackUrl, roundTrip) {
      try {
        const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
          pkceCodeVerifier: roundTrip.codeVerifier,
          expectedState: roundTrip.state,
          expectedNonce: roundTrip.nonce,
          idTokenExpected: true,
        });
        const claims = tokens.claims();
        if (claims === undefined) throw new UpstreamSignInError('failed', 'token response has no ID token');
        return { ...claims };
      } catch (error) {
        if (error instanceof UpstreamSignInError) throw error;
        const kind: UpstreamFailureKind = error instanceof oidc.AuthorizationResponseError ? 'denied' : 'failed';
        throw new UpstreamSignInError(kind, `upstream sign-in ${kind}: ${upstreamFailureReason(error)}`, {
          cause: error,
        });
      }
    },
  };
}

/** Longest reason kept: an IdP's error_description has no limit of its own (RFC 6749 §4.1.2.1, §5.2). */
const maxReasonLength = 300;

/**
 * Why the exchange with the IdP failed, for the operator's log: the network
 * reason, or the OAuth `error` code with its description (an IdP error
 * response or challenge), or openid-client's code with the check that failed (a bad
 * audience, a wrong nonce, ...). openid-client keeps the values it compared,
 * the response body and the callback parameters on `cause`, never in these
 * fields, so no code, state or token reaches the text. The description is free
 * text chosen by the IdP, or on the callback by whoever sent the browser
 * there: control characters go and the length is bounded.
 */
export function upstreamFailureReason(error: unknown): string {
  if (isNetworkFailure(error)) return boundedText(fetchFailureReason(error));
  // A token endpoint that refuses the client's credentials may answer 401 with its error in WWW-Authenticate (RFC 6749 §5.2).
  const challenge = error instanceof oidc.WWWAuthenticateChallengeError ? error.cause[0]?.parameters : undefined;
  const fields = (challenge?.error === undefined ? error : challenge) as {
    error?: unknown;
    error_description?: unknown;
    code?: unknown;
    message?: unknown;
  };
  const code = typeof fields.error === 'string' ? fields.error : fields.code;
  const text = typeof fields.error_description === 'string' ? fields.error_description : fields.message;
  const parts = [code, text].filter((part): part is string => typeof part === 'string' && part !== '');
  return boundedText(parts.length === 0 ? 'unknown error' : parts.join(': '));
}

function boundedText(text: string): string {
  const printable = [...text.replace(/[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]+/gu, ' ').trim()];
  return printable.length > maxReasonLength ? `${printable.slice(0, maxReasonLength).join('')}...` : printable.join('');
}
