/**
 * The browser side: the device verification page (`GET/POST /device`), the
 * authorization endpoint with its consent page (`GET/POST /oauth/authorize`)
 * and the IdP callback (`GET /auth/callback`). Every form is CSRF-checked;
 * every IdP round trip is bound to the browser by a cookie.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import {
  authorizeEndpoint,
  callbackEndpoint,
  consentEndpoint,
  type BrowserStep,
} from '../../auth/authorize/authorize-endpoints.ts';
import type { SignInFailure } from '../../auth/authorize/sign-in-failure.ts';
import { describeDeviceCode, deviceSubmit, type DeviceRequester } from '../../auth/device/device-endpoints.ts';
import { endpointPaths, type SignInContext } from '../../auth/sign-in-context.ts';
import type { BrokerMetrics } from '../metrics.ts';
import type { RateLimiter } from '../rate-limit/rate-limiter.ts';
import { clientIp, type ForwardedTrust } from '../rate-limit/client-ip.ts';
import { clearCookie, csrfCookie, readCookie, roundTripCookie, setCookie, type CookiePolicy } from './cookies.ts';
import type { CsrfGuard } from './csrf.ts';
import { acceptFormBodiesOnly, formOf, queryParams } from './form-body.ts';
import { htmlReply, pageErrorHandler } from './replies.ts';
import { consentPage, devicePage, messagePage } from './pages.ts';
import { pageStylesheet, stylesheetPath } from './html.ts';

export type PageRoutesOptions = {
  context: SignInContext;
  csrf: CsrfGuard;
  cookies: CookiePolicy;
  /** RFC 8628 §5.1: user-code guesses per client IP; null when rate limits are off. */
  userCodeBuckets: RateLimiter | null;
  trustForwardedFor: ForwardedTrust;
  roundTripTtlSeconds: number;
  /** The per-IP limit of the pages; the IdP callback is gated by its state cookie instead (as the Go broker's `server.go` routes). */
  limit?: onRequestHookHandler;
  metrics?: Pick<BrokerMetrics, 'recordSignInFailure'>;
};

const invalidCode = 'Invalid or expired code. Check the code on your device, or start again there.';
const enterCodeAgain = { href: endpointPaths.verification, label: 'Enter a code again' };

export function pageRoutes(scope: FastifyInstance, options: PageRoutesOptions): void {
  const { context, csrf, cookies } = options;
  acceptFormBodiesOnly(scope);
  scope.setErrorHandler(pageErrorHandler);
  const idp = [context.upstream.authorizationOrigin];
  const limited = options.limit === undefined ? {} : { onRequest: options.limit };

  /** The CSRF secret of this browser, set when it has none yet. */
  const csrfSecret = (request: FastifyRequest, reply: FastifyReply): string => {
    const spec = csrfCookie(cookies);
    let secret = readCookie(request.headers.cookie, spec.name);
    if (secret === undefined || !/^[A-Za-z0-9_-]{16,64}$/.test(secret)) {
      secret = csrf.newSecret();
      reply.header('set-cookie', setCookie(spec, secret, cookies));
    }
    return secret;
  };
  const csrfToken = (request: FastifyRequest, reply: FastifyReply): string => csrf.tokenFor(csrfSecret(request, reply));
  const csrfOk = (request: FastifyRequest, token: string | undefined) =>
    csrf.verify({
      secret: readCookie(request.headers.cookie, csrfCookie(cookies).name),
      token,
      origin: stringHeader(request.headers.origin),
      fetchSite: stringHeader(request.headers['sec-fetch-site']),
    });
  const forbidden = (reply: FastifyReply) =>
    htmlReply(
      reply.code(403),
      messagePage('Request refused', 'This form expired or did not come from this site.', 'alert', {
        next: 'Go back, reload the page and try again.',
      }),
      [],
    );

  // The pages' one stylesheet (src/broker/http/signin/html.ts); the CSP admits styles from here only.
  scope.get(stylesheetPath, async (_request, reply) =>
    reply.type('text/css; charset=utf-8').header('cache-control', 'public, max-age=3600').send(pageStylesheet),
  );

  scope.get(endpointPaths.verification, limited, async (request, reply) => {
    const prefill = (queryParams(request.url).user_code ?? '').slice(0, 12);
    // Naming the program is a courtesy: without shared state (Redis down) the page still works, without the name.
    const asking =
      prefill === ''
        ? undefined
        : await pendingRequester(request, prefill).catch((error: unknown) => {
            request.log.warn({ err: error }, 'device page: the program behind the code could not be looked up');
            return undefined;
          });
    return htmlReply(reply, deviceForm(request, reply, prefill, asking), idp);
  });

  /**
   * The verification form for `userCode`. Naming `asking` makes it the
   * confirmation RFC 8628 §5.4 asks for, whether the code came in the link or
   * was typed: the form then carries proof that this browser was shown who
   * asks for this very code, and only an approval carrying it goes on to the IdP.
   */
  const deviceForm = (
    request: FastifyRequest,
    reply: FastifyReply,
    userCode: string,
    asking: DeviceRequester | undefined,
  ) => {
    const secret = csrfSecret(request, reply);
    return devicePage({
      userCode,
      csrf: csrf.tokenFor(secret),
      ...(asking === undefined ? {} : { asking, requesterShown: csrf.requesterShown(secret, userCode) }),
    });
  };

  /**
   * The program behind a code given in the link (verification_uri_complete),
   * so the page can name it before anyone signs in. A lookup is a guess like a
   * typed code, so it spends the same per-address budget (RFC 8628 §5.1); the
   * form it shows carries proof of that, so confirming the same code is not
   * charged again.
   */
  const pendingRequester = async (request: FastifyRequest, userCode: string) => {
    const verdict = await options.userCodeBuckets?.take(clientIp(request, options.trustForwardedFor));
    if (verdict !== undefined && !verdict.ok) return undefined;
    return (await describeDeviceCode(context, userCode)) ?? undefined;
  };

  scope.post(endpointPaths.verification, limited, async (request, reply) => {
    const form = formOf(request.body);
    if (!csrfOk(request, form.csrf)) return forbidden(reply);
    const typed = (form.user_code ?? '').slice(0, 32);
    // The form of a page that named who asks for this very code: the person's confirmation, already charged.
    const shown = csrf.isRequesterShown(
      readCookie(request.headers.cookie, csrfCookie(cookies).name),
      typed,
      form.shown,
    );
    const verdict = shown
      ? undefined
      : await options.userCodeBuckets?.take(clientIp(request, options.trustForwardedFor));
    if (verdict !== undefined && !verdict.ok) {
      reply.header('retry-after', String(verdict.retryAfterSeconds));
      return htmlReply(
        reply.code(429),
        devicePage({
          userCode: typed,
          csrf: csrfToken(request, reply),
          error: `Too many attempts. Wait ${verdict.retryAfterSeconds} seconds and try again.`,
        }),
        idp,
      );
    }
    const result = await deviceSubmit(context, typed, form.action === 'deny' ? 'deny' : 'approve', shown);
    switch (result.kind) {
      case 'unknown-code':
        return htmlReply(
          reply.code(400),
          devicePage({ userCode: typed, csrf: csrfToken(request, reply), error: invalidCode }),
          idp,
        );
      case 'denied':
        return htmlReply(
          reply,
          messagePage('Request denied', 'The device was not signed in. You can close this window.', 'status', {
            link: enterCodeAgain,
          }),
          [],
        );
      case 'confirm':
        return htmlReply(reply, deviceForm(request, reply, result.userCode, result.asking), idp);
      case 'upstream':
        return toUpstream(reply, result.url, result.state);
    }
  });

  const authorize = async (request: FastifyRequest, reply: FastifyReply, params: Record<string, string>) => {
    if (params.consent_id !== undefined) {
      if (!csrfOk(request, params.csrf)) return forbidden(reply);
      return answer(
        request,
        reply,
        await consentEndpoint(context, params.consent_id, params.decision === 'approve' ? 'approve' : 'deny'),
      );
    }
    return answer(request, reply, await authorizeEndpoint(context, params));
  };
  scope.get(endpointPaths.authorization, limited, async (request, reply) =>
    authorize(request, reply, queryParams(request.url)),
  );
  scope.post(endpointPaths.authorization, limited, async (request, reply) =>
    authorize(request, reply, { ...formOf(request.body) }),
  );

  scope.get(endpointPaths.callback, async (request, reply) => {
    const spec = roundTripCookie(cookies, options.roundTripTtlSeconds);
    const bound = readCookie(request.headers.cookie, spec.name);
    reply.header('set-cookie', clearCookie(spec, cookies));
    const url = new URL(request.url, context.issuer);
    return answer(request, reply, await callbackEndpoint(context, url, bound));
  });

  const toUpstream = (reply: FastifyReply, url: string, state: string) =>
    reply
      .header('set-cookie', setCookie(roundTripCookie(cookies, options.roundTripTtlSeconds), state, cookies))
      .header('cache-control', 'no-store')
      .redirect(url, 303);

  /** The answer says only that sign-in failed; the operator gets why (the detail holds no code, state or token). */
  const reportFailure = (request: FastifyRequest, failure: SignInFailure) => {
    request.log.warn({ kind: failure.kind, detail: failure.detail }, 'upstream sign-in failed');
    options.metrics?.recordSignInFailure(failure.kind);
  };

  const answer = (request: FastifyRequest, reply: FastifyReply, step: BrowserStep) => {
    switch (step.kind) {
      case 'page-error':
        request.log.warn(
          { status: step.status, reason: step.message, ...(step.detail === undefined ? {} : { detail: step.detail }) },
          `sign-in page refused: ${step.title}`,
        );
        return htmlReply(
          reply.code(step.status),
          messagePage(step.title, step.message, 'alert', {
            ...(step.next === undefined ? {} : { next: step.next }),
            ...(step.technical === undefined ? {} : { technical: step.technical }),
          }),
          [],
        );
      case 'client-redirect':
        if (step.failure !== undefined) reportFailure(request, step.failure);
        return reply.header('cache-control', 'no-store').redirect(step.url, 303);
      case 'upstream':
        return toUpstream(reply, step.url, step.state);
      case 'consent': {
        const body = consentPage({
          client: step.client,
          redirectUri: step.request.redirectUri,
          scope: step.request.scope,
          consentId: step.pendingId,
          csrf: csrfToken(request, reply),
        });
        return htmlReply(reply, body, [...idp, formTarget(step.request.redirectUri)]);
      }
      case 'device-done': {
        if (step.failure !== undefined) reportFailure(request, step.failure);
        const title =
          step.outcome === 'approved'
            ? 'Device signed in'
            : step.outcome === 'denied'
              ? 'Sign-in refused'
              : 'Sign-in not completed';
        return htmlReply(
          reply.code(step.outcome === 'approved' ? 200 : 400),
          messagePage(
            title,
            step.message,
            step.outcome === 'approved' ? 'status' : 'alert',
            step.outcome === 'approved' ? {} : { link: enterCodeAgain },
          ),
          [],
        );
      }
    }
  };
}

/** The CSP source that admits a redirect to `uri` (an origin, or a bare private-use scheme). */
function formTarget(uri: string): string {
  const url = new URL(uri);
  return url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
}

function stringHeader(value: string | string[] | undefined): string | undefined {
  return typeof value === 'string' ? value : undefined;
}
