/**
 * Discovery documents on the issuer host: RFC 8414 metadata (root and
 * path-inserted forms, RFC 8414 §3.1), the same document as OpenID Connect
 * Discovery, and the JWKS with the current and next signing keys.
 */
import type { FastifyInstance } from 'fastify';
import { authorizationServerMetadata } from '../../auth/as-metadata.ts';
import { ringJwks } from '../../auth/key-ring.ts';
import { endpointPaths, type SignInContext } from '../../auth/sign-in-context.ts';
import { allowAnyOrigin, preflight } from './replies.ts';

export function metadataPaths(issuer: string): string[] {
  const path = new URL(issuer).pathname.replace(/\/+$/, '');
  return [
    ...new Set([
      '/.well-known/oauth-authorization-server',
      `/.well-known/oauth-authorization-server${path}`,
      '/.well-known/openid-configuration',
      `${path}/.well-known/openid-configuration`,
    ]),
  ];
}

/** `preflightMaxAgeMs`: `server.cors.maxAge` (replies.ts `preflight`). */
export function metadataRoutes(scope: FastifyInstance, context: SignInContext, preflightMaxAgeMs: number): void {
  const document = authorizationServerMetadata(context);
  const answerPreflight = preflight(preflightMaxAgeMs);
  for (const path of metadataPaths(context.issuer)) {
    scope.get(path, async (_request, reply) =>
      allowAnyOrigin(reply).header('cache-control', 'public, max-age=300').send(document),
    );
    scope.options(path, answerPreflight);
  }
  scope.get(endpointPaths.jwks, async (_request, reply) =>
    allowAnyOrigin(reply).header('cache-control', 'public, max-age=300').send(ringJwks(context.ring)),
  );
  scope.options(endpointPaths.jwks, answerPreflight);
}
