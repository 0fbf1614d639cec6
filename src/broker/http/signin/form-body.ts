import type { FastifyInstance } from 'fastify';
import { OAuthError } from '../../auth/oauth-error.ts';

/** OAuth requests are small; anything bigger is not one. */
export const formBodyLimitBytes = 64 * 1024;

/**
 * A scope whose routes take form bodies only: the OAuth endpoints RFC 6749
 * §3.2 / §4.1.3 and RFC 8628 §3.1 define as form-encoded, and the pages'
 * forms. fastify parses JSON (and text) by default; with it, an array, an
 * object or a number reached handlers written for strings and crashed them
 * (test/security/form-bodies.test.ts). Any other content type, or a body
 * without one, is `invalid_request` (400, as docs/errors.md lists it) that
 * says what to send; the scope's error handler words it as JSON or as a page.
 */
export function acceptFormBodiesOnly(scope: FastifyInstance): void {
  scope.removeAllContentTypeParsers();
  registerFormParser(scope);
  scope.addContentTypeParser('*', (request, _payload, done) => {
    const sent = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    // Named back only when it is a plain media type: the description is shown on pages too.
    const named = /^[a-z0-9.+-]{1,60}\/[a-z0-9.+-]{1,60}$/.test(sent) ? sent : 'this content type';
    done(notForm(sent === '' ? 'a body without a content type' : named), undefined);
  });
}

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

/**
 * The form of a request whose body must be form-encoded (a missing body reads
 * as empty), as a record whose every value is one string: the handlers read
 * it as such, and a value of another type (an array or object a JSON body
 * carried) would reach `startsWith`, `createHash().update` or `Buffer.from`
 * and throw there. A scope set up by `acceptFormBodiesOnly` never hands it
 * anything else; this is the second line.
 */
export function formOf(body: unknown): Record<string, string> {
  const form: Record<string, string> = Object.create(null);
  if (body === undefined) return form;
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw notForm('a body of another kind');
  for (const [name, value] of Object.entries(body)) {
    if (typeof value !== 'string') throw notForm(`a value that is not one string in ${name.slice(0, 40)}`);
    form[name] = value;
  }
  return form;
}

/** What a caller reads when its body is not a form: what it sent, what to send instead. */
function notForm(sent: string): OAuthError {
  return new OAuthError(
    'invalid_request',
    `this endpoint takes application/x-www-form-urlencoded (RFC 6749 §3.2, RFC 8628 §3.1), not ${sent}: send each parameter once, as a form field`,
  );
}
