import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';

/** How long a JWKS fetch may take, and how often an unknown `kid` may trigger a refetch. */
const jwksTimeoutMs = 5_000;
const jwksCooldownMs = 30_000;
const jwksCacheMaxAgeMs = 10 * 60_000;

/**
 * The upstream IdP's signing keys, fetched from its `jwks_uri` and cached.
 * jose refetches on an unknown `kid` at most once per cool-down, so a flood of
 * forged tokens cannot make the broker hammer the IdP.
 */
export function remoteJwks(jwksUri: string | URL): JWTVerifyGetKey {
  return createRemoteJWKSet(new URL(jwksUri), {
    timeoutDuration: jwksTimeoutMs,
    cooldownDuration: jwksCooldownMs,
    cacheMaxAge: jwksCacheMaxAgeMs,
  });
}
