/**
 * Sign-in as the broker process composes it: the durable and short-lived
 * stores, the key ring, the authorization server context (only when an
 * upstream issuer is configured) and the management-listener plugin. Without
 * an issuer the plugin still publishes the JWKS, so other verifiers can check
 * broker tokens.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import type { BrokerConfig } from '../../config/index.ts';
import { loadKeyRing, ringAdditionalKeys, ringJwks, type SigningKeyRing } from '../../auth/key-ring.ts';
import type { SignInContext } from '../../auth/sign-in-context.ts';
import { createSignInContext } from '../../auth/sign-in-setup.ts';
import type { UpstreamIdp } from '../../auth/upstream/upstream-idp.ts';
import type { BearerVerifierOptions } from '../../auth/verify-bearer.ts';
import {
  FileStateStore,
  MemoryEphemeralStore,
  MemoryStateStore,
  type EphemeralStore,
  type StateDocumentStore,
} from '../../state/index.ts';
import type { BrokerMetrics } from '../metrics.ts';
import type { RateLimiterFactory } from '../rate-limit/rate-limiter.ts';
import { signInRoutes } from './index.ts';
import { allowAnyOrigin } from './replies.ts';

export type BrokerSignInOptions = {
  /** Durable state; default the file backend in `storage.dir`, or memory when another backend is configured but not provided. */
  stateStore?: StateDocumentStore;
  ephemeralStore?: EphemeralStore;
  /** Where the sign-in routes' rate-limit buckets live; default this process's memory. */
  rateLimiters?: RateLimiterFactory;
  upstreamIdp?: UpstreamIdp;
  metrics?: BrokerMetrics;
  now?: () => number;
  /** The refresh-token sweep is run by a leader-elected sweeper elsewhere (several replicas share state). */
  externalRefreshSweep?: boolean;
};

export type BrokerSignIn = {
  ring: SigningKeyRing;
  context: SignInContext | null;
  plugin: FastifyPluginAsync;
  close(): Promise<void>;
};

export async function setUpBrokerSignIn(
  config: BrokerConfig,
  resource: string,
  options: BrokerSignInOptions = {},
): Promise<BrokerSignIn> {
  const durable = options.stateStore ?? defaultStateStore(config);
  const ring = await loadKeyRing({
    currentPem: config.oidc.brokerSigningKey,
    ...(config.oidc.nextBrokerSigningKey === undefined ? {} : { nextPem: config.oidc.nextBrokerSigningKey }),
    store: durable,
    previousTrustMs: config.server.idTokenTTL,
    ...(options.now ? { now: options.now } : {}),
  });
  if (config.oidc.issuer === undefined && options.upstreamIdp === undefined) {
    const plugin: FastifyPluginAsync = async (app) => {
      app.get('/.well-known/jwks.json', async (_request, reply) =>
        allowAnyOrigin(reply).header('cache-control', 'public, max-age=300').send(ringJwks(ring)),
      );
    };
    return { ring, context: null, plugin, close: async () => {} };
  }
  const ephemeral = options.ephemeralStore ?? new MemoryEphemeralStore();
  const context = await createSignInContext({
    config,
    resource,
    ring,
    durable,
    ephemeral,
    ...pick(options, 'upstreamIdp', 'now'),
  });
  const plugin = signInRoutes({
    context,
    cookieKey: config.server.cookieKey === undefined ? randomBytes(32) : Buffer.from(config.server.cookieKey, 'base64'),
    insecureCookies: config.server.insecureCookies,
    roundTripTtlSeconds: Math.ceil(config.server.stateTTL / 1000),
    preflightMaxAgeMs: config.server.cors.maxAge,
    rateLimit: {
      disabled: config.rateLimit.disabled,
      login: config.rateLimit.login,
      userCode: config.rateLimit.userCode,
      registration: config.rateLimit.registration,
      trustForwardedFor: config.rateLimit.trustForwardedFor,
      ...(options.rateLimiters ? { limiters: options.rateLimiters } : {}),
    },
    ...(options.metrics ? { metrics: options.metrics } : {}),
  });
  const timers = startSweepers(config, context, ephemeral, options.externalRefreshSweep === true);
  const close = async () => {
    for (const timer of timers) clearInterval(timer);
  };
  return { ring, context, plugin, close };
}

/** The bearer verifier also trusts the ring's other keys, and applies `oidc.allowDomains`. */
export function withKeyRing(
  options: BearerVerifierOptions,
  ring: SigningKeyRing,
  allowDomains: readonly string[],
): BearerVerifierOptions {
  const additionalKeys = ringAdditionalKeys(ring).filter((key) => key.kid !== options.broker.kid);
  return { ...options, broker: { ...options.broker, additionalKeys }, allowDomains };
}

function defaultStateStore(config: BrokerConfig): StateDocumentStore {
  if (config.storage.backend === 'file' && config.storage.dir !== undefined)
    return new FileStateStore(config.storage.dir);
  return new MemoryStateStore();
}

function startSweepers(
  config: BrokerConfig,
  context: SignInContext,
  ephemeral: EphemeralStore,
  external: boolean,
): NodeJS.Timeout[] {
  const timers: NodeJS.Timeout[] = [];
  if (ephemeral instanceof MemoryEphemeralStore) timers.push(setInterval(() => ephemeral.sweep(), 30_000));
  if (!config.sweeper.disabled && !external)
    timers.push(setInterval(() => void context.refreshTokens.sweep().catch(() => undefined), config.sweeper.interval));
  for (const timer of timers) timer.unref();
  return timers;
}

function pick<T extends object, K extends keyof T>(source: T, ...keys: K[]): Partial<Pick<T, K>> {
  const out: Partial<Pick<T, K>> = {};
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
