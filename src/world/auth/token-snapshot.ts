/**
 * One immutable set of tokens (Go `auth.TokenStore`) and its two decisions,
 * Go `server/internal/auth/auth.go` `AuthorizeRead`. The handler pins one snapshot per request, so a reload never
 * lands midway through one.
 *
 * `authorize(token, path, op)`: empty token → no-token; unknown → invalid-token;
 * past `expires` → expired; lacking the operation or the path → not-permitted.
 *
 * `authorizeRead(token, path)`: the agent manifest, and any path no read-token
 * pattern covers (neither `path` nor `path + "/"`), are public and ignore the
 * token sent. Otherwise `authorize(…, "read")`, retried on `path + "/"` when
 * not permitted, so a directory pattern `/team/` grants the bare `/team`.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { manifestPath } from '../manifest.ts';
import { matchesAnyPath } from './path-pattern.ts';
import { parseTokensFile, type TokenEntry } from './tokens-file.ts';

export type AuthDenial = 'no-token' | 'invalid-token' | 'expired' | 'not-permitted';
export type AuthOutcome = 'ok' | AuthDenial;

/** The operation every write verb needs (PUBLISH, APPEND, ARCHIVE, unarchive). */
export const publishOperation = 'publish';
/** The operation that turns read-auth on for the paths it covers. */
export const readOperation = 'read';

/** Go `IsUnauthenticated`: a fresh token could fix it (`unauthorized`); else `not-permitted`. */
export function isUnauthenticated(outcome: AuthOutcome): boolean {
  return outcome === 'no-token' || outcome === 'invalid-token' || outcome === 'expired';
}

export class TokenSnapshot {
  readonly #entries: readonly TokenEntry[];
  readonly #readPatterns: readonly string[];
  readonly #now: () => Date;

  constructor(entries: readonly TokenEntry[], options: { now?: () => Date } = {}) {
    this.#entries = Object.freeze([...entries]);
    this.#readPatterns = Object.freeze(
      entries.filter((e) => e.operations.includes(readOperation)).flatMap((e) => e.paths),
    );
    this.#now = options.now ?? (() => new Date());
  }

  /** Parse a tokens file's text; throws TokensFileError. */
  static parse(text: string, options: { source?: string; now?: () => Date } = {}): TokenSnapshot {
    return new TokenSnapshot(parseTokensFile(text, options.source ?? 'tokens.toml'), options);
  }

  get size(): number {
    return this.#entries.length;
  }

  /** Labels in file order, for logs and status pages (never the hashes). */
  get labels(): readonly string[] {
    return this.#entries.map((e) => e.label);
  }

  /** `token` is the raw `auth` value; absent and empty are the same. */
  authorize(token: string | undefined, reqPath: string, operation: string): AuthOutcome {
    if (token === undefined || token === '') return 'no-token';
    const entry = this.#find(token);
    if (entry === null) return 'invalid-token';
    if (entry.expiresAt !== null && this.#now().getTime() > entry.expiresAt.getTime()) return 'expired';
    if (!entry.operations.includes(operation) || !matchesAnyPath(entry.paths, reqPath)) return 'not-permitted';
    return 'ok';
  }

  /** The label of a known token (for audit logs), null for an absent or unknown one. Never the hash. */
  labelOf(token: string | undefined): string | null {
    if (token === undefined || token === '') return null;
    return this.#find(token)?.label ?? null;
  }

  /** Whether any read token covers the path (or, for a bare name, the path as a directory). */
  requiresReadAuth(reqPath: string): boolean {
    if (matchesAnyPath(this.#readPatterns, reqPath)) return true;
    return !reqPath.endsWith('/') && matchesAnyPath(this.#readPatterns, `${reqPath}/`);
  }

  authorizeRead(token: string | undefined, reqPath: string): AuthOutcome {
    if (reqPath === manifestPath || !this.requiresReadAuth(reqPath)) return 'ok';
    const outcome = this.authorize(token, reqPath, readOperation);
    if (
      outcome === 'not-permitted' &&
      !reqPath.endsWith('/') &&
      this.authorize(token, `${reqPath}/`, readOperation) === 'ok'
    ) {
      return 'ok';
    }
    return outcome;
  }

  /**
   * The entry whose hash is SHA-256(token). Every entry is compared, with
   * `timingSafeEqual` and no early exit, so the time taken says nothing about
   * which (or whether a) stored hash shares a prefix with the candidate.
   */
  #find(token: string): TokenEntry | null {
    const digest = createHash('sha256').update(token).digest();
    let found: TokenEntry | null = null;
    for (const entry of this.#entries) {
      const equal = timingSafeEqual(entry.digest, digest);
      if (equal && found === null) found = entry;
    }
    return found;
  }
}

/** Read decision with no tokens configured (`snapshot === null`): everything is public. */
export function authorizeRead(snapshot: TokenSnapshot | null, token: string | undefined, reqPath: string): AuthOutcome {
  return snapshot === null ? 'ok' : snapshot.authorizeRead(token, reqPath);
}
