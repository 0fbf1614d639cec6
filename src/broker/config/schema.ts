/**
 * The broker config schema: the Go broker's keys where they exist (reference
 * §6.3) plus ours (`worldDialer.*` timeouts and circuit breaker, allowed
 * origins/hosts, metrics). Every object is strict: an unknown key is an error,
 * as the Go decoder's `KnownFields(true)`. Cross-field rules and derived
 * defaults run after this shape check (rules.ts, resolve.ts).
 */
import { z } from 'zod';
import { count, countOrDefault, duration, flag, lowerList, section, signingKeyPem, text, webUrl } from './fields.ts';
import { serverSchema } from './server-schema.ts';
import { worldSchema } from './world-schema.ts';

/**
 * What the gateway needs now is the broker's own signing key (it verifies
 * broker-signed ES256 tokens); the upstream issuer is optional until the
 * sign-in issue, and when set it needs its client id (the ID-token audience).
 */
const oidcSchema = z.strictObject({
  issuer: webUrl({ trimSlash: true, httpsUnlessLoopback: true }).optional(),
  clientID: text().optional(),
  clientSecret: text().optional(),
  redirectURL: webUrl().optional(),
  brokerSigningKey: signingKeyPem(),
  /** `hd` claim allowlist (reference §2.2); lower-cased and trimmed. */
  allowDomains: lowerList(),
});

const storageSchema = z.strictObject({
  backend: z.enum(['kubernetes', 'file']).default('kubernetes'),
  /** Broker state directory (file storage): write-token records, later refresh tokens. */
  dir: text().optional(),
});

const bucketSchema = (perMinute: number, burst: number) =>
  z.strictObject({ perMinute: countOrDefault(perMinute), burst: countOrDefault(burst) }).prefault({});

/**
 * Reference §6.1; a zero rate or burst means the default. The per-subject
 * default is the Go deployment's 120/min, burst 60, not the Go binary's 10/5:
 * one MCP client's connect handshake alone (initialize, initialized, list
 * calls) takes five requests.
 */
const rateLimitSchema = z.strictObject({
  disabled: flag(false),
  tokens: bucketSchema(120, 60),
  login: bucketSchema(20, 5),
  trustForwardedFor: flag(false),
});

const worldDialerSchema = z.strictObject({
  /** Go broker key: accept any world certificate. Explicit opt-in only. */
  insecureSkipVerify: flag(false),
  /** PEM CA bundle to verify world certificates with; default the system store. */
  caFile: text().optional(),
  dialTimeout: duration('5s'),
  /** Budget of one world call, retries of reads included. */
  requestTimeout: duration('10s'),
  /** Consecutive transport failures that open a world's circuit. */
  failureThreshold: count(3),
  /** How long an open circuit fails fast before one probe call is let through. */
  cooldown: duration('5s'),
});

const sweeperSchema = z.strictObject({
  disabled: flag(false),
  interval: duration('5m'),
  leaseName: text().default('demarkus-broker-sweeper'),
});

/** Reference §2.5: an absolute https URL with a host, no userinfo or fragment, not loopback. */
const webRedirectUri = () =>
  z.string().superRefine((value, ctx) => {
    const url = URL.canParse(value) ? new URL(value) : null;
    const problem =
      url === null || url.protocol !== 'https:' || url.host === '' ? 'must be an absolute https URL'
      : url.username !== '' || url.password !== '' ? 'must not carry userinfo'
      : url.hash !== '' || value.includes('#') ? 'must not carry a fragment'
      : ['localhost', '127.0.0.1', '[::1]'].includes(url.hostname) ? 'must not be a loopback host (loopback clients use the native-app flow)'
      : null;
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

/** Reference §2.5 confidential web clients; accepted now, used by the sign-in issue. */
const webClientSchema = z.strictObject({
  clientID: text(),
  clientSecretHash: z
    .string()
    .transform((value) => value.trim().toLowerCase())
    .refine((value) => /^[0-9a-f]{64}$/.test(value), 'must be 64 hex characters (sha256 of the client secret)'),
  redirectURIs: z.array(webRedirectUri()).min(1, 'must list at least one redirect URI'),
  name: text().optional(),
});

export const brokerConfigShape = z.strictObject({
  server: section(serverSchema),
  oidc: section(oidcSchema),
  storage: storageSchema.prefault({}),
  worlds: z.array(worldSchema).min(1, 'at least one world is required').prefault([]),
  webClients: z.array(webClientSchema).default([]),
  sweeper: sweeperSchema.prefault({}),
  rateLimit: rateLimitSchema.prefault({}),
  worldDialer: worldDialerSchema.prefault({}),
  metrics: z.strictObject({ enabled: flag(true) }).prefault({}),
});

export type ParsedBrokerConfig = z.infer<typeof brokerConfigShape>;
