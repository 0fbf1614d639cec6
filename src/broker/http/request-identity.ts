import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Identity } from '../identity.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The caller, once `bearerAuthHook` has verified the request's token; null before. */
    identity: Identity | null;
  }
}

export function decorateIdentity(app: FastifyInstance): void {
  app.decorateRequest('identity', null);
}

/** For handlers behind `bearerAuthHook`: reaching one without an identity is a wiring bug. */
export function requireIdentity(request: FastifyRequest): Identity {
  if (request.identity === null) throw new Error(`route ${request.routeOptions.url} ran without bearer verification`);
  return request.identity;
}
