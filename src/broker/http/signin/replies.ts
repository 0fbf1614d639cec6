import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { asOAuthError, OAuthError } from '../../auth/oauth-error.ts';
import { messagePage } from './pages.ts';
import { preflightMaxAgeSeconds } from '../preflight-max-age.ts';
import { retryAfterWholeSeconds } from '../rate-limit/reject.ts';

/** RFC 6749 §5.1: token responses (and anything else carrying a secret) are never cached. */
export function noStore(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}

/** The JSON endpoints are called by browser-based MCP clients too; they carry no cookies, so any origin may read them. */
export function allowAnyOrigin(reply: FastifyReply): FastifyReply {
  return reply.header('access-control-allow-origin', '*').header('access-control-expose-headers', 'www-authenticate');
}

/**
 * The preflight answer of the JSON endpoints. Browsers cache it for `server.cors.maxAge`, the
 * setting the MCP listener's preflights follow too (docs/decisions.md): one knob for how long a
 * browser may keep any CORS answer of this broker, 0 meaning not at all.
 */
export function preflight(maxAgeMs: number) {
  const maxAge = String(preflightMaxAgeSeconds(maxAgeMs));
  return (_request: FastifyRequest, reply: FastifyReply): FastifyReply =>
    allowAnyOrigin(reply)
      .header('access-control-allow-methods', 'GET, POST, OPTIONS')
      .header('access-control-allow-headers', 'authorization, content-type, mcp-protocol-version')
      .header('access-control-max-age', maxAge)
      .code(204)
      .send();
}

/** The OAuthError an error of either kind of route stands for: logged, its Retry-After set. */
function refusal(error: FastifyError | OAuthError, request: FastifyRequest, reply: FastifyReply): OAuthError {
  const oauth = error instanceof OAuthError ? error : fromFastify(error as FastifyError);
  logRefusal(request, oauth);
  retryAfter(reply, oauth);
  return oauth;
}

/** The one place an error of a JSON endpoint becomes a body; 5xx details go to the log only. */
export function oauthErrorHandler(
  error: FastifyError | OAuthError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const oauth = refusal(error, request, reply);
  noStore(allowAnyOrigin(reply)).code(oauth.status);
  // RFC 6749 §5.2: invalid_client after an Authorization header attempt answers with a challenge.
  if (oauth.error === 'invalid_client' && /^Basic\b/i.test(request.headers.authorization ?? ''))
    reply.header('www-authenticate', 'Basic realm="demarkus-broker"');
  return reply.send(oauth.toResponseObject());
}

/** Errors of the page routes become a page, never a stack trace. */
export function pageErrorHandler(
  error: FastifyError | OAuthError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const oauth = refusal(error, request, reply);
  return htmlReply(reply.code(oauth.status), errorPage(oauth), []);
}

const startAgain = 'start again from the application or terminal you were using.';

/** What a person reads: a refusal's reason, a passing condition's reason and wait, never a server error's detail. */
function errorPage(oauth: OAuthError): string {
  switch (oauth.error) {
    case 'temporarily_unavailable': {
      // Its description is written for whoever reads it (the bound of pending sign-ins, shared state out of reach).
      const seconds =
        oauth.retryAfterSeconds === undefined ? undefined : retryAfterWholeSeconds(oauth.retryAfterSeconds);
      const wait = seconds === undefined ? 'Wait a moment' : `Wait ${seconds} second${seconds === 1 ? '' : 's'}`;
      return messagePage('Try again shortly', sentence(oauth.description), 'alert', {
        next: `${wait}, then ${startAgain}`,
      });
    }
    case 'server_error':
      return messagePage('Something went wrong', 'The sign-in service had a problem.', 'alert', {
        next: `Wait a moment, then ${startAgain}`,
      });
    default:
      return messagePage('Something went wrong', 'The sign-in service could not accept this request.', 'alert', {
        next: 'Start again from the application or terminal you were using.',
        technical: oauth.description,
      });
  }
}

function retryAfter(reply: FastifyReply, error: OAuthError): void {
  if (error.retryAfterSeconds !== undefined)
    reply.header('retry-after', String(retryAfterWholeSeconds(error.retryAfterSeconds)));
}

/** An OAuth error_description (lower case, no full stop) as a sentence of a page. */
function sentence(description: string): string {
  const text = description.charAt(0).toUpperCase() + description.slice(1);
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

function fromFastify(error: FastifyError): OAuthError {
  if (error.statusCode === 413 || error.code === 'FST_ERR_CTP_BODY_TOO_LARGE')
    return new OAuthError('invalid_request', 'request body is too large');
  if (error.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE')
    return new OAuthError('invalid_request', 'unsupported content type');
  if (error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode < 500)
    return new OAuthError('invalid_request', 'malformed request');
  return asOAuthError(error);
}

function logRefusal(request: FastifyRequest, error: OAuthError): void {
  if (error.status >= 500) request.log.error({ err: error.cause ?? error, code: error.code }, 'sign-in request failed');
  else request.log.warn({ code: error.code, detail: error.message }, 'sign-in request refused');
}

/** Security headers of every page: no framing (clickjacking), no script, forms only to us and `formTargets`. */
export function htmlReply(reply: FastifyReply, body: string, formTargets: readonly string[]): FastifyReply {
  const formAction = ["'self'", ...new Set(formTargets)].join(' ');
  return (
    noStore(reply)
      .type('text/html; charset=utf-8')
      .header(
        'content-security-policy',
        `default-src 'none'; style-src 'self'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
      )
      .header('x-frame-options', 'DENY')
      // Not no-referrer: under it browsers send `Origin: null` on our own form posts, which the CSRF check refuses.
      .header('referrer-policy', 'same-origin')
      .header('x-content-type-options', 'nosniff')
      .send(body)
  );
}
