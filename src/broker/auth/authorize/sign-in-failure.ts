/**
 * A sign-in that came back from the IdP without an identity, as the operator
 * sees it: a fixed kind (the label of `broker_signin_failures_total`) and the
 * reason in words for the log. The user and the client see only the generic
 * answer of the flow (authorize-endpoints.ts).
 */
export const signInFailureKinds = [
  /** The IdP sent the browser back with an error (`?error=access_denied`, ...). */
  'denied',
  /** The code exchange or the ID token check failed: a wrong client secret, a bad audience, the IdP unreachable. */
  'failed',
  /** The IdP signed the person in, the broker refused the identity (unverified email, domain not permitted, ...). */
  'refused',
] as const;

export type SignInFailureKind = (typeof signInFailureKinds)[number];

/** `detail` never holds the authorization code, state, tokens or cookies (upstreamFailureReason, upstream-idp.ts). */
export type SignInFailure = { kind: SignInFailureKind; detail: string };
