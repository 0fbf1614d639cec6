/**
 * Reusable zod field types for the broker config. Each validates one value at
 * the edge and, where the Go broker normalises (lower-casing allowlists,
 * trimming a trailing `/` from public URLs), normalises the same way. Messages
 * name the problem, never the value: some of these fields hold secrets.
 */
import { createPrivateKey } from 'node:crypto';
import { z } from 'zod';
import { DurationError, parseGoDuration } from './duration.ts';
import { AddressError, isDnsName, isValidHost, parseHostPort, parseListenAddress } from './host-port.ts';
import { isLoopbackUrlHost } from '../../transport/loopback.ts';
import { isValidWorldName, worldNameRule } from './world-name.ts';

type Ctx = z.core.$RefinementCtx<unknown>;

function fail(ctx: Ctx, message: string): never {
  ctx.addIssue({ code: 'custom', message });
  return z.NEVER as never;
}

/**
 * A config block that may be absent: absent parses as `{}`, so its own keys
 * report "is required" by their full path rather than the block as a whole.
 */
export function section<T extends z.ZodType>(schema: T) {
  return z.preprocess((value) => (value === undefined ? {} : value), schema);
}

/** A value that must say something: empty or only spaces (`clientID: "  "`) is refused. */
export const text = () => z.string().refine((value) => value.trim() !== '', 'must not be empty or blank');

export const flag = (fallback: boolean) => z.boolean().default(fallback);

/** A Go duration in milliseconds; zero means the default, as in the Go broker; negative is an error. */
export function duration(defaultText: string) {
  return goDuration(defaultText, 'default');
}

/**
 * A Go duration in milliseconds where an explicit zero means zero: for waits
 * that may be skipped (no shutdown drain, no grace for requests in flight, no
 * preflight caching), so "0s" written by an operator is not read as the
 * default. Absent still means the default; negative is an error.
 */
export function durationZeroAllowed(defaultText: string) {
  return goDuration(defaultText, 'zero');
}

function goDuration(defaultText: string, zeroMeans: 'default' | 'zero') {
  const fallback = parseGoDuration(defaultText);
  const negative = zeroMeans === 'default' ? 'must be 0 (the default) or more' : 'must be 0 or more';
  return z
    .string({ error: 'must be a duration string such as "5m"' })
    .transform((value, ctx) => {
      let ms: number;
      try {
        ms = parseGoDuration(value);
      } catch (error) {
        return fail(ctx, error instanceof DurationError ? error.message : 'is not a duration');
      }
      if (ms < 0) return fail(ctx, negative);
      return ms === 0 && zeroMeans === 'default' ? fallback : ms;
    })
    .prefault(defaultText);
}

/** A count where 0 means the default (Go broker rule for rate limits and first-mint attempts). */
export function countOrDefault(fallback: number) {
  return z
    .number()
    .int('must be a whole number')
    .min(0, 'must be 0 (the default) or more')
    .transform((value) => (value === 0 ? fallback : value))
    .default(fallback);
}

/** A count with no zero-means-default rule. */
export const count = (fallback: number) =>
  z.number().int('must be a whole number').min(1, 'must be at least 1').default(fallback);

export const listenAddress = () =>
  z.string().transform((value, ctx) => {
    try {
      parseListenAddress(value);
      return value;
    } catch (error) {
      return fail(
        ctx,
        `${error instanceof AddressError ? error.message : 'is invalid'} (as ":8080" or "127.0.0.1:8080")`,
      );
    }
  });

/** A world dial address, `host:port`. */
export const dialAddress = () =>
  z.string().transform((value, ctx) => {
    try {
      parseHostPort(value);
      return value;
    } catch (error) {
      return fail(
        ctx,
        `${error instanceof AddressError ? error.message : 'is invalid'} (as "team-a.team-a.svc.cluster.local:6309")`,
      );
    }
  });

/** A DNS name (RFC 1123 labels), not an IP address: `discovery.clusterDomain`. */
export const dnsName = () => z.string().refine(isDnsName, 'must be a DNS name such as "cluster.local"');

export const hostName = () => z.string().refine((value) => isValidHost(value), 'must be a DNS name or an IP address');

/**
 * An absolute http(s) URL without userinfo, query or fragment. `httpsUnlessLoopback`
 * refuses plain http except on loopback hosts (for the upstream issuer, whose
 * JWKS must not be fetched in the clear). `trimSlash` drops a trailing `/`, as
 * the Go broker does for `server.publicURL`.
 */
export function webUrl(options: { trimSlash?: boolean; httpsUnlessLoopback?: boolean } = {}) {
  return z.string().transform((value, ctx) => {
    const url = URL.canParse(value) ? new URL(value) : null;
    if (url === null || (url.protocol !== 'https:' && url.protocol !== 'http:') || url.host === '') {
      return fail(ctx, 'must be an absolute http:// or https:// URL');
    }
    if (url.username !== '' || url.password !== '') return fail(ctx, 'must not carry userinfo');
    if (url.search !== '' || url.hash !== '') return fail(ctx, 'must not carry a query or fragment');
    if (options.httpsUnlessLoopback === true && url.protocol === 'http:' && !isLoopbackUrlHost(url.hostname)) {
      return fail(ctx, 'must use https (plain http is accepted only for loopback hosts)');
    }
    return options.trimSlash === true ? value.replace(/\/+$/, '') : value;
  });
}

/** An origin as browsers send it in `Origin` (`https://host[:port]`), normalised by the URL parser. */
export const origin = () =>
  z.string().transform((value, ctx) => {
    const url = URL.canParse(value) ? new URL(value) : null;
    const bare =
      url !== null &&
      url.pathname === '/' &&
      url.search === '' &&
      url.hash === '' &&
      url.username === '' &&
      url.password === '';
    if (url === null || !bare || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
      return fail(ctx, 'must be an origin such as "https://broker.example.com"');
    }
    return url.origin;
  });

/** `host[:port]` as clients send it in `Host`, lower-cased. */
export const hostHeader = () =>
  z.string().transform((value, ctx) => {
    const lower = value.toLowerCase();
    const parsed = URL.canParse(`http://${lower}`) ? new URL(`http://${lower}`) : null;
    if (parsed === null || parsed.host !== lower.replace(/:80$/, '') || parsed.pathname !== '/') {
      return fail(ctx, 'must be a host such as "broker.example.com" or "127.0.0.1:8081"');
    }
    return lower;
  });

/** A `mark://host[:port]` URL handed to clients (Go broker `config.go` `publicURL`). */
export const markUrl = () =>
  z.string().refine((value) => /^mark:\/\/[^/?#@\s]+(\/[^\s?#]*)?$/i.test(value), 'must be a mark://host[:port] URL');

/** Entries lower-cased and trimmed at load; an empty entry is a config error (Go `normalizeAllowList`). */
export const lowerList = () =>
  z
    .array(z.string().transform((value, ctx) => value.trim().toLowerCase() || fail(ctx, 'must not be empty')))
    .default([]);

/** A world's logical name (world-name.ts); world names are not secret, so the message quotes it. */
export const worldName = () =>
  z.string().superRefine((name, ctx) => {
    if (!isValidWorldName(name))
      ctx.addIssue({ code: 'custom', message: `invalid world name ${JSON.stringify(name)}: ${worldNameRule}` });
  });

/** Kubernetes object names (RFC 1123 subdomain). */
export const k8sName = () =>
  z
    .string()
    .regex(
      /^(?=.{1,253}$)[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/,
      'must be a Kubernetes name (lower-case letters, digits, "-" and ".")',
    );

/**
 * The broker's ES256 signing key: PEM, PKCS#8 (`PRIVATE KEY`) or SEC1
 * (`EC PRIVATE KEY`), on curve P-256 (Go broker `idtoken.go`). Checked at load so a bad
 * key stops startup with this key path, not later in the signer.
 */
export const signingKeyPem = () =>
  z.string().superRefine((pem, ctx) => {
    let curve: string | undefined;
    try {
      const key = createPrivateKey(pem);
      curve = key.asymmetricKeyType === 'ec' ? key.asymmetricKeyDetails?.namedCurve : key.asymmetricKeyType;
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be a PEM-encoded EC P-256 private key (PKCS#8 or SEC1)' });
      return;
    }
    if (curve !== 'prime256v1')
      ctx.addIssue({ code: 'custom', message: `must be an EC P-256 key (ES256), not ${curve ?? 'unknown'}` });
  });

/** `server.cookieKey`: standard base64 of at least 16 bytes (Go broker `session.go`). */
export const cookieKey = () =>
  z
    .string()
    .refine(
      (value) => /^[A-Za-z0-9+/]+={0,2}$/.test(value) && Buffer.from(value, 'base64').length >= 16,
      'must be standard base64 of at least 16 bytes',
    );

/**
 * A write-token path glob as the world loads it (Go `server/internal/auth/auth.go` `validatePattern`): starts
 * with `/`, no control characters, at most one `**`, which must be a whole
 * segment. The world is the final judge; this catches typos at startup.
 */
export const tokenPathPattern = () =>
  z.string().superRefine((pattern, ctx) => {
    const problem = tokenPatternProblem(pattern);
    if (problem !== null) ctx.addIssue({ code: 'custom', message: problem });
  });

/** Why `pattern` is not a token path glob the world would match, or null. */
export function tokenPatternProblem(pattern: string): string | null {
  if (!pattern.startsWith('/')) return 'must start with "/"';
  if (/[\u0000-\u001f\u007f]/.test(pattern)) return 'must not contain control characters';
  const stars = pattern.split('**').length - 1;
  if (stars > 1) return 'must contain "**" at most once';
  if (stars === 1 && !/\/\*\*(\/|$)/.test(pattern)) return 'must use "**" as a whole path segment ("/docs/**")';
  return null;
}
