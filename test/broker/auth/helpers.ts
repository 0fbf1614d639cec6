import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

/** A local IdP's signing side: an RS256 key and a JWKS endpoint on 127.0.0.1 (a real HTTP fetch). */
export type LocalIdp = {
  issuer: string;
  jwksUri: string;
  fetches: () => number;
  sign: (
    claims: Record<string, unknown>,
    options?: { audience?: string; issuer?: string; expiresIn?: string | null; kid?: string },
  ) => Promise<string>;
  close: () => Promise<void>;
};

export async function startLocalIdp(clientId: string): Promise<LocalIdp> {
  const { privateKey, publicKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'idp-key-1', alg: 'RS256', use: 'sig' };
  let fetches = 0;
  const server: Server = createServer((request, response) => {
    if (request.url !== '/jwks') return void response.writeHead(404).end();
    fetches += 1;
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: [jwk] }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer: base,
    jwksUri: `${base}/jwks`,
    fetches: () => fetches,
    sign: (claims, options = {}) => {
      const jwt = new SignJWT(claims)
        .setProtectedHeader({ alg: 'RS256', kid: options.kid ?? 'idp-key-1' })
        .setIssuer(options.issuer ?? base)
        .setAudience(options.audience ?? clientId)
        .setSubject('idp-subject-1')
        .setIssuedAt();
      // null: a token with no `exp` at all, as a misconfigured IdP could issue.
      if (options.expiresIn !== null) jwt.setExpirationTime(options.expiresIn ?? '10m');
      return jwt.sign(privateKey);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A compact JWS with `alg: none` and an empty signature (RFC 7519 §6.1). */
export function unsecuredJwt(header: Record<string, unknown>, claims: Record<string, unknown>): string {
  const part = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
  return `${part({ alg: 'none', ...header })}.${part(claims)}.`;
}
