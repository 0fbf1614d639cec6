import { hash } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload, type JWTVerifyGetKey } from 'jose';
import { LRUCache } from 'lru-cache';
import type { Identity } from '../identity.ts';
import { BearerError } from './bearer-error.ts';
import { parseBearerHeader } from './bearer-header.ts';
import { identityFromClaims } from './claims-identity.ts';
import { domainAllowed } from './domain-gate.ts';

/** Tokens the broker signed itself: ES256 only, with its own `iss` and `aud`. */
export type BrokerTokenTrust = {
  publicKey: KeyObject;
  kid: string;
  issuer: string;
  /** Accepted `aud` values; normally the MCP resource URL. */
  audiences: readonly string[];
  /** More keys of the broker's key ring (the next key, a just-retired one), by `kid`. */
  additionalKeys?: readonly VerifierKey[];
  /**
   * Web clients configured with `bearer: id_token`. A broker ID token is
   * accepted for one of them only when its `aud` is exactly that client and
   * its `azp` names it too (the broker sets `azp` only on ID tokens it mints
   * to be bearers), so no other client's ID token ever passes.
   */
  idTokenClients?: readonly string[];
  /** Every configured web client id: their callers are marked `webClient` (tools answer them whole documents). */
  webClients?: readonly string[];
};

/** A key of the broker's ring beside the current one; `until` (ms since the epoch): trusted before that instant only. */
export type VerifierKey = { kid: string; publicKey: KeyObject; until?: number };

/** ID tokens of the configured upstream OIDC issuer, for compatibility (Go broker `oidc.go`). */
export type UpstreamTokenTrust = {
  issuer: string;
  /** The broker's client id at the IdP: the `aud` of its ID tokens. */
  clientId: string;
  /** The IdP's keys, normally `remoteJwks(jwks_uri)`. */
  jwks: JWTVerifyGetKey;
  /** Signature algorithms accepted from the IdP; asymmetric only. */
  algorithms?: readonly string[];
};

export type BearerVerifierOptions = {
  broker: BrokerTokenTrust;
  upstream?: UpstreamTokenTrust;
  /** Leeway for `exp`/`nbf` in seconds; at most 60 (the Go broker's `jwt.DefaultLeeway`). */
  clockToleranceSeconds?: number;
  currentDate?: () => Date;
  /** `oidc.allowDomains`: when not empty, a token's `hd` must be listed (checked on every bearer). */
  allowDomains?: readonly string[];
};

/** Verifies the `Authorization` header of one request; resolves to the caller or throws BearerError. */
export type BearerVerifier = (authorization: string | readonly string[] | undefined) => Promise<Identity>;

const maxClockToleranceSeconds = 60;
// Never HS*: a symmetric algorithm would let anyone holding a public key sign.
const defaultUpstreamAlgorithms = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
];

/**
 * The composite verifier of the Go broker (`oidc.go`): a token whose `kid` is the
 * broker's is verified against the broker key and any failure there is
 * final; any other token is tried as an upstream ID token. `alg` is pinned
 * per trust (RFC 8725 §3.1), so `alg: none` and HS256-with-the-public-key fail.
 */
export function createBearerVerifier(options: BearerVerifierOptions): BearerVerifier {
  const tolerance = options.clockToleranceSeconds ?? maxClockToleranceSeconds;
  if (!(tolerance >= 0 && tolerance <= maxClockToleranceSeconds)) {
    throw new RangeError(`clockToleranceSeconds must be between 0 and ${maxClockToleranceSeconds}, got ${tolerance}`);
  }
  if (options.broker.audiences.length === 0) throw new RangeError('broker token audiences must not be empty');
  const { broker, upstream } = options;
  const cache = new VerifiedTokenCache();
  const now = () => (options.currentDate ? options.currentDate().getTime() : Date.now());
  return async (authorization) => {
    const token = parseBearerHeader(authorization);
    const known = cache.get(token, now());
    if (known !== undefined) return gated(known, options.allowDomains);
    const identity = await verifyToken(token);
    return gated(identity, options.allowDomains);
  };

  async function verifyToken(token: string): Promise<Identity> {
    const common = {
      // A token without `exp` would be accepted for ever, and so would the streams it opens
      // (stream-expiry.ts): ours always carry one, and OpenID Connect Core §2 requires it of ID
      // tokens, so its absence is a doubt, and refused.
      requiredClaims: ['exp'],
      clockTolerance: tolerance,
      ...(options.currentDate ? { currentDate: options.currentDate() } : {}),
    };
    const brokerKey = brokerKeyFor(broker, keyIdOf(token), now());
    let claims: JWTPayload;
    let issuedBy: Identity['issuedBy'];
    let client: string | undefined;
    if (brokerKey !== undefined) {
      claims = await verified(token, brokerKey.publicKey, {
        ...common,
        algorithms: ['ES256'],
        issuer: broker.issuer,
        audience: [...broker.audiences, ...(broker.idTokenClients ?? [])],
      });
      issuedBy = 'broker';
      client = clientOf(claims, broker);
    } else {
      if (upstream === undefined)
        throw new BearerError(
          'ERR_BEARER_INVALID',
          'token is not signed by the broker key and no upstream issuer is configured',
        );
      const algorithms = [...(upstream.algorithms ?? defaultUpstreamAlgorithms)];
      claims = await verified(token, upstream.jwks, {
        ...common,
        algorithms,
        issuer: upstream.issuer,
        audience: upstream.clientId,
      });
      issuedBy = 'upstream';
    }
    const identity = identityFromClaims(claims, issuedBy);
    if (client !== undefined && broker.webClients?.includes(client) === true) identity.webClient = client;
    if (typeof claims.exp === 'number') {
      // Always true (`requiredClaims` above); the check narrows the type.
      // jose accepts it up to `exp` plus the leeway, while its key is trusted: its streams last so long (stream-expiry.ts).
      identity.acceptedUntil = Math.min((claims.exp + tolerance) * 1000, brokerKey?.until ?? Infinity);
      // Cached no longer than the token lives, nor than the key that signed it is trusted.
      cache.set(token, identity, Math.min(claims.exp * 1000, brokerKey?.until ?? Infinity));
    }
    return identity;
  }
}

/**
 * The broker key a token's `kid` names, if it is trusted at `at`. A retired
 * key past its end is no broker key at all: its tokens fail as unknown ones do.
 */
function brokerKeyFor(broker: BrokerTokenTrust, kid: string | undefined, at: number): VerifierKey | undefined {
  if (kid === broker.kid) return { kid, publicKey: broker.publicKey };
  const key = broker.additionalKeys?.find((candidate) => candidate.kid === kid);
  return key !== undefined && (key.until === undefined || key.until > at) ? key : undefined;
}

/**
 * The OAuth client a verified broker token was issued to. A token for the MCP
 * resource names it in `client_id` (RFC 9068 §2.2); a token accepted only
 * through a client audience must be that client's bearer ID token: one
 * audience, and `azp` equal to it.
 */
function clientOf(claims: JWTPayload, broker: BrokerTokenTrust): string | undefined {
  const audiences = typeof claims.aud === 'string' ? [claims.aud] : (claims.aud ?? []);
  if (audiences.some((aud) => broker.audiences.includes(aud)))
    return typeof claims.client_id === 'string' ? claims.client_id : undefined;
  const [audience, ...more] = audiences;
  if (audience === undefined || more.length > 0 || claims.azp !== audience)
    throw new BearerError('ERR_BEARER_INVALID', 'an ID token is accepted only as the bearer of the client it names');
  return audience;
}

/**
 * Tokens already verified, so a session's every request does not repeat an
 * ES256 verification (about 0.17 ms each here). An entry lives until the
 * token's own `exp`, never longer, and the allowDomains gate still runs on
 * every request. Keyed by a hash: the raw token is not kept. Bounded; the
 * least recently used entry goes first (lru-cache). Expiry is checked against
 * the verifier's clock, which tests set, so it is not lru-cache's TTL.
 */
class VerifiedTokenCache {
  readonly #entries: LRUCache<string, { identity: Identity; expiresAtMs: number }>;

  constructor(max = 10_000) {
    this.#entries = new LRUCache({ max });
  }

  get(token: string, nowMs: number): Identity | undefined {
    const key = tokenKey(token);
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAtMs > nowMs) return entry.identity;
    this.#entries.delete(key);
    return undefined;
  }

  set(token: string, identity: Identity, expiresAtMs: number): void {
    this.#entries.set(tokenKey(token), { identity, expiresAtMs });
  }
}

/** One-shot hashing: no Hash object per request. */
function tokenKey(token: string): string {
  return hash('sha256', token, 'base64url');
}

/** The allowDomains gate on every bearer (docs/signin.md): tokens outlive a change of the list. */
function gated(identity: Identity, allowDomains: readonly string[] | undefined): Identity {
  if (!domainAllowed(allowDomains ?? [], identity.hostedDomain))
    throw new BearerError('ERR_BEARER_DOMAIN', 'hd claim is not in oidc.allowDomains');
  return identity;
}

type VerifyOptions = {
  algorithms: string[];
  issuer: string;
  audience: string | string[];
  clockTolerance: number;
  currentDate?: Date;
};

async function verified(token: string, key: KeyObject | JWTVerifyGetKey, options: VerifyOptions): Promise<JWTPayload> {
  try {
    // Overloads differ only in the key type; the call is the same.
    const result =
      typeof key === 'function' ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options);
    return result.payload;
  } catch (cause) {
    throw bearerErrorFrom(cause);
  }
}

function keyIdOf(token: string): string | undefined {
  try {
    return decodeProtectedHeader(token).kid;
  } catch (cause) {
    throw new BearerError('ERR_BEARER_INVALID', 'token is not a JWS compact serialization', { cause });
  }
}

function bearerErrorFrom(cause: unknown): BearerError {
  if (cause instanceof joseErrors.JWTExpired)
    return new BearerError('ERR_BEARER_EXPIRED', 'token exp is in the past', { cause });
  if (cause instanceof joseErrors.JOSEError)
    return new BearerError('ERR_BEARER_INVALID', `${cause.code}: ${cause.message}`, { cause });
  return new BearerError('ERR_BEARER_INVALID', 'token verification failed', { cause });
}
