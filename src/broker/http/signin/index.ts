/**
 * The issuer's sign-in routes as one fastify plugin for the management
 * listener (`createManagementApp({ plugins })`): discovery documents, the
 * JSON endpoints and the pages, each in its own encapsulated scope. Every
 * route except discovery and the IdP callback (gated by its state cookie) is
 * charged to the caller's IP.
 */
import type { FastifyInstance, FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { SignInContext } from '../../auth/sign-in-context.ts';
import type { BrokerMetrics } from '../metrics.ts';
import type { ForwardedTrust } from '../rate-limit/client-ip.ts';
import { ipRateLimitHook } from '../rate-limit/ip-rate-limit.ts';
import type { RateLimiter, RateLimiterFactory } from '../rate-limit/rate-limiter.ts';
import { limiterFor, type RateLimitSettings } from '../rate-limit/settings.ts';
import { CsrfGuard } from './csrf.ts';
import { jsonRoutes } from './json-routes.ts';
import { metadataRoutes } from './metadata-routes.ts';
import { pageRoutes } from './page-routes.ts';

export { metadataPaths } from './metadata-routes.ts';

export type SignInRoutesOptions = {
  context: SignInContext;
  /** `server.cookieKey`, decoded: the HMAC key of the forms' CSRF tokens. */
  cookieKey: Buffer;
  /** `server.insecureCookies`: plain-http development without Secure cookies. */
  insecureCookies: boolean;
  roundTripTtlSeconds: number;
  /** `server.cors.maxAge`: how long browsers may cache the JSON endpoints' preflight answers. */
  preflightMaxAgeMs: number;
  rateLimit: {
    disabled: boolean;
    login: RateLimitSettings;
    userCode: RateLimitSettings;
    /** RFC 7591 registrations per IP, charged on top of `login`. */
    registration: RateLimitSettings;
    trustForwardedFor: ForwardedTrust;
    now?: () => number;
    /** Where the buckets live; default this process's memory. */
    limiters?: RateLimiterFactory;
  };
  metrics?: BrokerMetrics;
};

export function signInRoutes(options: SignInRoutesOptions): FastifyPluginAsync {
  const { context, rateLimit } = options;
  const cookies = { secure: !options.insecureCookies };
  const csrf = new CsrfGuard(options.cookieKey, new URL(context.issuer).origin);
  // One budget for every unauthenticated sign-in route, as the Go broker's `rateLimit.login`.
  const loginBuckets = rateLimit.disabled ? null : limiterFor('login', rateLimit.login, rateLimit);
  const userCodeBuckets = rateLimit.disabled ? null : limiterFor('user-code', rateLimit.userCode, rateLimit);
  const ipLimit = (buckets: RateLimiter | null) =>
    buckets === null
      ? undefined
      : ipRateLimitHook({
          buckets,
          trustForwardedFor: rateLimit.trustForwardedFor,
          ...(options.metrics ? { metrics: options.metrics } : {}),
        });
  const limit = ipLimit(loginBuckets);
  // Registration is anonymous and leaves a record behind: its own, smaller budget per address.
  const registrationLimit = ipLimit(
    rateLimit.disabled ? null : limiterFor('registration', rateLimit.registration, rateLimit),
  );
  return async (app) => {
    await app.register(async (scope) => metadataRoutes(scope, context, options.preflightMaxAgeMs));
    await app.register(async (scope) => {
      redactQueryInLogs(scope);
      if (limit !== undefined) scope.addHook('onRequest', limit);
      jsonRoutes(scope, context, options.preflightMaxAgeMs, registrationLimit);
    });
    await app.register(async (scope) => {
      redactQueryInLogs(scope);
      pageRoutes(scope, {
        context,
        csrf,
        cookies,
        userCodeBuckets,
        trustForwardedFor: rateLimit.trustForwardedFor,
        roundTripTtlSeconds: options.roundTripTtlSeconds,
        ...(limit === undefined ? {} : { limit }),
        ...(options.metrics ? { metrics: options.metrics } : {}),
      });
    });
  };
}

/**
 * Query strings of sign-in routes carry user codes, authorization codes and
 * state; request logs keep only the path (style rule: no codes in logs).
 */
function redactQueryInLogs(scope: FastifyInstance): void {
  scope.addHook('onRoute', (route) => {
    route.logSerializers = {
      ...route.logSerializers,
      req: (request: FastifyRequest) => ({
        method: request.method,
        url: request.url.split('?')[0],
        remoteAddress: request.ip,
      }),
    };
  });
}
