import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../../auth/oauth-error.ts';

/** OAuth requests are small; anything bigger is not one. */
export const formBodyLimitBytes = 64 * 1024;

/**
 * `application/x-www-form-urlencoded` bodies (RFC 6749 §3.2, RFC 8628 §3.1)
 * as a flat record. RFC 6749 §3.1: parameters MUST NOT be repeated, so a
 * repeated one is refused rather than one of its values picked.
 */
export function registerFormParser(scope: FastifyInstance): void {
  scope.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit: formBodyLimitBytes },
    (_request, body, done) => {
      try {
        done(null, singleValued(new URLSearchParams(body as string)));
      } catch (error) {
        done(error as Error, undefined);
      }
    },
  );
}

export function singleValued(params: URLSearchParams): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  for (const [name, value] of params) {
    if (Object.hasOwn(out, name)) throw new OAuthError('invalid_request', `parameter ${name} is repeated`);
    out[name] = value;
  }
  return out;
}

/** The query string of a request, by the same rule. */
export function queryParams(url: string): Record<string, string> {
  const index = url.indexOf('?');
  return singleValued(new URLSearchParams(index < 0 ? '' : url.slice(index + 1)));
}

/** The form of a request whose body must be form-encoded (a missing body reads as empty). */
export function formOf(body: unknown): Record<string, string> {
  if (body === undefined || body === null) return Object.create(null);
  if (typeof body !== 'object' || Array.isArray(body))
    throw new OAuthError('invalid_request', 'body must be application/x-www-form-urlencoded');
  return body as Record<string, string>;
}
