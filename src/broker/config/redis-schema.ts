/**
 * Where the broker keeps its short-lived shared state (`state.ephemeral`) and
 * how it reaches Redis (or Valkey, same protocol) when that is chosen. Secrets
 * never sit in the URL: the password comes from `redis.passwordFile` (a mounted
 * Secret) or the `DEMARKUS_BROKER_REDIS_PASSWORD` variable (env.ts).
 */
import { z } from 'zod';
import { AddressError, parseHostPort } from './host-port.ts';
import { count, duration, text } from './fields.ts';

/**
 * The default of `state.maxPendingSignIns`: sign-ins of each kind anyone may
 * start (device authorizations, pending authorizations, IdP round trips).
 * Sized so the three kinds at their worst (1.0 + 3.4 + 3.4 KB measured on
 * Redis 7) fit the documented Redis (`maxmemory 200mb`,
 * deploy/values/redis.yaml) beside the MCP sessions' worst case and
 * registrations: docs/operations.md works the sum.
 */
export const defaultMaxPendingSignIns = 8_000;

export const stateSchema = z.strictObject({
  /** `memory`: one replica keeps its own; `redis`: every replica shares `redis.*`. */
  ephemeral: z.enum(['memory', 'redis']).default('memory'),
  /** Sign-ins of one kind started and not yet expired, past which a new one is refused (503). */
  maxPendingSignIns: count(defaultMaxPendingSignIns),
});

const redisUrl = () =>
  z.string().superRefine((value, ctx) => {
    const url = URL.canParse(value) ? new URL(value) : null;
    const problem =
      url === null || (url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === ''
        ? 'must be a redis://host[:port][/db] or rediss://host[:port][/db] URL'
        : url.password !== '' || url.username !== ''
          ? 'must not carry credentials (use redis.username and redis.passwordFile or DEMARKUS_BROKER_REDIS_PASSWORD)'
          : url.search !== '' || url.hash !== ''
            ? 'must not carry a query or fragment'
            : !/^(\/(0|[1-9]\d{0,8})?)?$/.test(url.pathname)
              ? 'may only name a database number (0 or more) as its path ("/0")'
              : null;
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

const redisNode = () =>
  z.string().superRefine((value, ctx) => {
    try {
      parseHostPort(value);
    } catch (error) {
      const reason = error instanceof AddressError ? error.message : 'is invalid';
      ctx.addIssue({ code: 'custom', message: `${reason} (as "redis-sentinel.redis.svc:26379")` });
    }
  });

const keyPrefix = () =>
  z
    .string()
    .regex(/^[A-Za-z0-9_.:-]{1,64}$/, 'must be 1-64 letters, digits or "_.:-" (as "demarkus:")')
    .default('demarkus:');

export const redisSchema = z.strictObject({
  /** The server (`redis://` plain, `rediss://` TLS); with `sentinel` it gives only the scheme and database. */
  url: redisUrl().optional(),
  /** ACL user (Redis 6+); absent: the `default` user. */
  username: text().optional(),
  /** Prefer `passwordFile` or the environment variable; accepted here for files that are themselves secret. */
  password: text().optional(),
  passwordFile: text().optional(),
  /** PEM CA bundle for `rediss://`; default the system store. */
  caFile: text().optional(),
  keyPrefix: keyPrefix(),
  connectTimeout: duration('5s'),
  /** One command's budget; past it the call fails and sign-in answers 503. */
  commandTimeout: duration('2s'),
  sentinel: z
    .strictObject({
      masterName: text(),
      nodes: z.array(redisNode()).min(1, 'must list at least one sentinel'),
      /** Sentinels with their own password (`requirepass` on the sentinels). */
      passwordFile: text().optional(),
    })
    .optional(),
});

export type RedisConfig = z.infer<typeof redisSchema>;
