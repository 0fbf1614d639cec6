/**
 * The two cookies of the sign-in pages. Over https both carry the `__Host-`
 * prefix and `Secure` (RFC 6265bis §4.1.3): a `__Host-` cookie has Path=/ and
 * no Domain, so only the broker's own host can set it, never a sibling
 * subdomain. `server.insecureCookies` drops the prefix and `Secure` for
 * plain-http development, where browsers refuse both. Always HttpOnly and SameSite.
 */
export type CookiePolicy = { secure: boolean };

export type CookieSpec = { name: string; path: string; sameSite: 'Strict' | 'Lax'; maxAgeSeconds: number };

/** CSRF secret of the page forms; Strict: it is only ever needed on our own same-site POSTs. */
export const csrfCookie = (policy: CookiePolicy): CookieSpec => ({
  name: policy.secure ? '__Host-demarkus_csrf' : 'demarkus_csrf',
  path: '/',
  sameSite: 'Strict',
  maxAgeSeconds: 3600,
});

/**
 * Binds an IdP round trip to this browser; Lax, since the IdP's redirect back
 * is a cross-site top-level GET. `__Host-`, not `__Secure-`: a `__Secure-`
 * cookie may carry Domain=, so a sibling subdomain could plant its own
 * round trip's state in the person's browser and have their sign-in finish
 * its request (login CSRF; MCP security best practices, "confused deputy").
 */
export const roundTripCookie = (policy: CookiePolicy, maxAgeSeconds: number): CookieSpec => ({
  name: policy.secure ? '__Host-demarkus_signin' : 'demarkus_signin',
  path: '/',
  sameSite: 'Lax',
  maxAgeSeconds,
});

export function setCookie(spec: CookieSpec, value: string, policy: CookiePolicy): string {
  const parts = [
    `${spec.name}=${value}`,
    `Path=${spec.path}`,
    `Max-Age=${spec.maxAgeSeconds}`,
    'HttpOnly',
    `SameSite=${spec.sameSite}`,
  ];
  if (policy.secure) parts.push('Secure');
  return parts.join('; ');
}

export function clearCookie(spec: CookieSpec, policy: CookiePolicy): string {
  return setCookie({ ...spec, maxAgeSeconds: 0 }, '', policy);
}

/** The value of cookie `name` in a `Cookie` header; values we set are base64url, so no decoding. */
export function readCookie(header: string | undefined, name: string): string | undefined {
  if (header === undefined) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}
