/**
 * The broker config schema: the Go broker's keys where they exist (Go broker
 * `config.go`) plus ours (`worldDialer.*` timeouts and circuit breaker, allowed
 * origins/hosts, metrics). Every object is strict: an unknown key is an error,
 * as the Go decoder's `KnownFields(true)`. Cross-field rules and derived
 * defaults run after this shape check (rules.ts, resolve.ts).
 */
import { z } from 'zod';
import {
  count,
  countOrDefault,
  dnsName,
  duration,
  flag,
  lowerList,
  section,
  signingKeyPem,
  text,
  webUrl,
  worldName,
} from './fields.ts';
import { redisSchema, stateSchema } from './redis-schema.ts';
import { serverSchema } from './server-schema.ts';
import { worldSchema } from './world-schema.ts';
import { isLoopbackUrlHost } from '../../transport/loopback.ts';
import { defaultHubWorld } from '../hub-world.ts';

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
  /** The key to promote next: published in the JWKS beside the current one; generated into storage when absent. */
  nextBrokerSigningKey: signingKeyPem().optional(),
  /** `hd` claim allowlist (Go broker `oidcDomainAllowed`); lower-cased and trimmed. */
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
 * Go broker `ratelimit.go`; a zero rate or burst means the default. The per-subject
 * default is the Go deployment's 120/min, burst 60, not the Go binary's 10/5:
 * one MCP client's connect handshake alone (initialize, initialized, list
 * calls) takes five requests.
 */
const forwardedTrustMessage = 'must be true, false or the number of proxies in front of the broker (0 to 16)';

const rateLimitSchema = z.strictObject({
  disabled: flag(false),
  tokens: bucketSchema(120, 60),
  login: bucketSchema(20, 5),
  /** RFC 8628 §5.1: user-code guesses per IP at the verification page, on top of `login`. */
  userCode: bucketSchema(10, 5),
  /** RFC 7591 registrations per IP, on top of `login`: 10 at once, then one a minute. */
  registration: bucketSchema(1, 10),
  /** false, true (one proxy) or the number of proxies in front (src/broker/http/rate-limit/client-ip.ts). */
  trustForwardedFor: z
    .union([z.boolean(), z.number()], { error: forwardedTrustMessage })
    .refine((value) => typeof value === 'boolean' || (Number.isInteger(value) && value >= 0 && value <= 16), {
      error: forwardedTrustMessage,
    })
    .default(false),
});

const worldDialerSchema = z.strictObject({
  /** Go broker key: accept any world certificate. Explicit opt-in only. */
  insecureSkipVerify: flag(false),
  /** PEM CA bundle to verify world certificates with; default the system store. */
  caFile: text().optional(),
  /**
   * QUIC connection set-up. It is the first wait a caller of a world that is
   * gone pays (a dial that times out is not retried; the circuit opens), so it
   * is short: 3 s covers QUIC's first Initial retransmission (about 1 s) with
   * room, while a handshake inside a cluster takes milliseconds.
   */
  dialTimeout: duration('3s'),
  /** Budget of one world call, retries of reads included. */
  requestTimeout: duration('10s'),
  /** One attempt of a world call; 0 (the default) means half of `requestTimeout`, so a read that stalls once is retried in time. */
  attemptTimeout: duration('0s'),
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

/** Go broker `config.go` `webClients[]`: an absolute https URL with a host, no userinfo or fragment, not loopback. */
const webRedirectUri = () =>
  z.string().superRefine((value, ctx) => {
    const url = URL.canParse(value) ? new URL(value) : null;
    const problem =
      url === null || url.protocol !== 'https:' || url.host === ''
        ? 'must be an absolute https URL'
        : url.username !== '' || url.password !== ''
          ? 'must not carry userinfo'
          : url.hash !== '' || value.includes('#')
            ? 'must not carry a fragment'
            : isLoopbackUrlHost(url.hostname)
              ? 'must not be a loopback host (loopback clients use the native-app flow)'
              : null;
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

/**
 * Confidential web clients (docs/signin.md "Web apps"). `bearer` says which
 * token the client sends to `/mcp`: the RFC 9068 access token (default), or,
 * for web apps written that way, the ID token its token responses then always
 * carry (the client's id becomes an accepted audience for that client only).
 */
export const webClientBearers = ['access_token', 'id_token'] as const;

const webClientSchema = z.strictObject({
  clientID: text(),
  clientSecretHash: z
    .string()
    .transform((value) => value.trim().toLowerCase())
    .refine((value) => /^[0-9a-f]{64}$/.test(value), 'must be 64 hex characters (sha256 of the client secret)'),
  redirectURIs: z.array(webRedirectUri()).min(1, 'must list at least one redirect URI'),
  name: text().optional(),
  bearer: z.enum(webClientBearers, { error: `must be one of ${webClientBearers.join(', ')}` }).default('access_token'),
});

/** Our authorization server's own knobs (no Go broker equivalent). */
const oauthSchema = z.strictObject({
  /** RFC 7591 dynamic client registration at `/register`. */
  registration: z
    .strictObject({
      disabled: flag(false),
      /** Registrations awaiting their first use, at most, per replica (src/broker/auth/clients/registered-clients.ts). */
      maxClients: count(1000),
      /** How long a registration nobody has obtained tokens with is kept. */
      unusedTtl: duration('15m'),
    })
    .prefault({}),
  /** Client ID Metadata Documents: https `client_id` URLs fetched by the broker. */
  clientMetadataDocuments: z
    .strictObject({
      disabled: flag(false),
      /** Development and tests only: also fetch http://localhost documents and dial loopback addresses. */
      allowLoopback: flag(false),
    })
    .prefault({}),
  /** Refresh-token families kept at most; the oldest unused goes first (a Kubernetes Secret holds about 5000). */
  maxRefreshTokenFamilies: count(5000),
  /** Families one person may hold; their own oldest goes first, so one user cannot evict others. */
  maxRefreshTokenFamiliesPerUser: count(20),
});

/**
 * Live world discovery (new): Services labelled `demarkus.io/world=<name>` are
 * added to and removed from the registry while the broker runs, beside the
 * configured worlds (which win on a name clash). Needs the Kubernetes API.
 */
/** `discovery.maxWorlds` by default, and the most it may be (test/kubernetes/served-names-size.test.ts checks the record fits a Secret). */
export const defaultMaxDiscoveredWorlds = 500;
export const maxDiscoveredWorldsCeiling = 2000;

const discoverySchema = z.strictObject({
  enabled: flag(false),
  /** Namespaces to watch; empty watches every namespace (needs the cluster-wide RBAC). */
  namespaces: z
    .array(z.string().regex(/^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/, 'must be a Kubernetes namespace name'))
    .default([]),
  clusterDomain: dnsName().default('cluster.local'),
  /**
   * Worlds served from Services at most; claimants beyond are refused and reported. The ceiling
   * keeps the replicas' served-names record (one entry per world) far inside one 1 MiB Secret.
   */
  maxWorlds: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(maxDiscoveredWorldsCeiling, `must be at most ${maxDiscoveredWorldsCeiling}`)
    .default(defaultMaxDiscoveredWorlds),
});

export const brokerConfigShape = z.strictObject({
  server: section(serverSchema),
  oidc: section(oidcSchema),
  storage: storageSchema.prefault({}),
  state: stateSchema.prefault({}),
  redis: redisSchema.optional(),
  // At least one world unless discovery is on (checked in rules.ts, where both are known).
  worlds: z.array(worldSchema).prefault([]),
  /**
   * The hub world (src/broker/hub-world.ts): the graph seeds from its `/graph.md` as speaking for
   * every world, and the org's publishing standard is read from it. The federation crawl
   * (`demarkus-broker crawl`) publishes there. It need not be configured: a hub that is not in
   * `worlds[]` nor discovered means no hub seed and no policy, as docs/knowledge.md says.
   */
  hub: worldName().default(defaultHubWorld),
  discovery: discoverySchema.prefault({}),
  webClients: z.array(webClientSchema).default([]),
  oauth: oauthSchema.prefault({}),
  sweeper: sweeperSchema.prefault({}),
  rateLimit: rateLimitSchema.prefault({}),
  worldDialer: worldDialerSchema.prefault({}),
  metrics: z.strictObject({ enabled: flag(true) }).prefault({}),
});

export type ParsedBrokerConfig = z.infer<typeof brokerConfigShape>;
