/**
 * OpenID Connect Core §5.3 userinfo: the claims of the user a broker access
 * token was issued for, so OIDC relying parties that read userinfo instead of
 * the ID token work too. The token is checked as the gateway checks it.
 */
import { ringAdditionalKeys } from './key-ring.ts';
import type { SignInContext } from './sign-in-context.ts';
import { createBearerVerifier, type BearerVerifier } from './verify-bearer.ts';

export function userinfoVerifier(
  context: Pick<SignInContext, 'ring' | 'issuer' | 'resource' | 'allowDomains'>,
  currentDate?: () => Date,
): BearerVerifier {
  const { current } = context.ring;
  return createBearerVerifier({
    broker: {
      publicKey: current.publicKey,
      kid: current.kid,
      issuer: context.issuer,
      audiences: [context.resource],
      additionalKeys: ringAdditionalKeys(context.ring),
    },
    allowDomains: context.allowDomains,
    ...(currentDate ? { currentDate } : {}),
  });
}

export async function userinfoEndpoint(
  verify: BearerVerifier,
  authorization: string | undefined,
): Promise<Record<string, unknown>> {
  const identity = await verify(authorization);
  return {
    sub: identity.subject,
    email: identity.email,
    email_verified: true,
    ...(identity.groups.length > 0 ? { groups: identity.groups } : {}),
    ...(identity.hostedDomain === undefined ? {} : { hd: identity.hostedDomain }),
  };
}
