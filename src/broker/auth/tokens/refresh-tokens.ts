/**
 * Refresh tokens (RFC 9700 §4.14, OAuth 2.1 §4.3.1): opaque, stored only as
 * SHA-256, bound to the client they were issued to, and rotated on every use.
 * Tokens descending from one sign-in form a family; presenting a token that
 * was already rotated away is reuse, and revokes the whole family (an
 * attacker and the victim can no longer both hold a live token). Families
 * expire `ttlMs` after their last use and are swept.
 */
import { randomSecret, sha256Hex } from '../secrets.ts';
import type { SignInIdentity } from '../sign-in-identity.ts';
import { jsonDocument, signInDocuments, type JsonDocument, type StateDocumentStore } from '../../state/index.ts';

export type RefreshGrant = { clientId: string; identity: SignInIdentity; scope: string; resource: string };

type Family = RefreshGrant & {
  /** Hash of the one live token. */
  current: string;
  /** Hashes rotated away, newest last, kept for reuse detection. */
  spent: string[];
  createdAt: number;
  expiresAt: number;
};

type TokensDocument = { families: Record<string, Family> };

export type RotateOutcome =
  | { kind: 'rotated'; token: string; grant: RefreshGrant; family: string }
  | { kind: 'reused'; family: string; clientId: string }
  | { kind: 'invalid'; reason: 'unknown' | 'expired' | 'other-client' };

export type RefreshTokensOptions = {
  ttlMs: number;
  /** Families kept at most; past it the largest holder's oldest family goes, never a light user's. */
  maxFamilies?: number;
  /** Families one user (upstream subject) may hold; past it that user's oldest family goes. */
  maxFamiliesPerUser?: number;
  maxSpent?: number;
  now?: () => number;
};

/** Sign-ins one person keeps at once: a few devices and clients each, not thousands. */
export const defaultMaxRefreshFamiliesPerUser = 20;

const isDocument = (value: unknown): value is TokensDocument =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as TokensDocument).families === 'object' &&
  (value as TokensDocument).families !== null;

/** The id of a new refresh-token family: random, unguessable, and never a token. */
export function newRefreshFamilyId(): string {
  return randomSecret(12);
}

export class RefreshTokens {
  readonly #document: JsonDocument<TokensDocument>;
  readonly #ttlMs: number;
  readonly #maxFamilies: number;
  readonly #maxPerUser: number;
  readonly #maxSpent: number;
  readonly #now: () => number;

  constructor(store: StateDocumentStore, options: RefreshTokensOptions) {
    this.#document = jsonDocument(store, signInDocuments.refreshTokens, () => ({ families: {} }), isDocument);
    this.#ttlMs = options.ttlMs;
    // About 5000 records fit a 1 MiB Kubernetes Secret (Go broker `refresh.go`).
    this.#maxFamilies = options.maxFamilies ?? 5000;
    this.#maxPerUser = options.maxFamiliesPerUser ?? defaultMaxRefreshFamiliesPerUser;
    this.#maxSpent = options.maxSpent ?? 16;
    this.#now = options.now ?? Date.now;
  }

  /**
   * A new family for a fresh sign-in; returns the raw token (shown to the
   * client once, never stored). `family` is given when its id was chosen
   * earlier: a code records it as it is spent (src/broker/auth/authorize/flow-state.ts).
   */
  async issue(grant: RefreshGrant, family: string = newRefreshFamilyId()): Promise<{ token: string; family: string }> {
    const token = randomSecret(32);
    const now = this.#now();
    await this.#document.update((doc) => {
      const families = live(doc.families, now);
      // A user's own sign-ins make room for their next one; others' families are not touched.
      const subject = grant.identity.subject;
      let own = Object.values(families).filter((f) => f.identity.subject === subject).length;
      for (; own >= this.#maxPerUser; own -= 1)
        delete families[oldestFamily(families, (f) => f.identity.subject === subject)!];
      while (Object.keys(families).length >= this.#maxFamilies) delete families[oldestOfLargestHolder(families)!];
      families[family] = {
        ...grant,
        current: sha256Hex(token),
        spent: [],
        createdAt: now,
        expiresAt: now + this.#ttlMs,
      };
      return { next: { families }, outcome: undefined };
    });
    return { token, family };
  }

  /** Spends `token` for `clientId` and returns its successor, or says why not (reuse revokes the family). */
  async rotate(token: string, clientId: string): Promise<RotateOutcome> {
    const hash = sha256Hex(token);
    const successor = randomSecret(32);
    const now = this.#now();
    return this.#document.update<RotateOutcome>((doc) => {
      const found = findFamily(doc.families, hash);
      if (found === null) return { outcome: { kind: 'invalid', reason: 'unknown' } };
      const [id, family] = found;
      if (family.clientId !== clientId) return { outcome: { kind: 'invalid', reason: 'other-client' } };
      const families = { ...doc.families };
      if (family.expiresAt <= now) {
        delete families[id];
        return { next: { families }, outcome: { kind: 'invalid', reason: 'expired' } };
      }
      if (family.current !== hash) {
        // RFC 9700 §4.14.2: a rotated-away token came back; someone else holds the family.
        delete families[id];
        return { next: { families }, outcome: { kind: 'reused', family: id, clientId: family.clientId } };
      }
      const spent = [...family.spent, hash].slice(-this.#maxSpent);
      families[id] = { ...family, current: sha256Hex(successor), spent, expiresAt: now + this.#ttlMs };
      const grant: RefreshGrant = {
        clientId: family.clientId,
        identity: family.identity,
        scope: family.scope,
        resource: family.resource,
      };
      return { next: { families }, outcome: { kind: 'rotated', token: successor, grant, family: id } };
    });
  }

  /** RFC 7009: revokes the family of `token` if it belongs to `clientId`; true when something was revoked. */
  async revoke(token: string, clientId: string): Promise<boolean> {
    const hash = sha256Hex(token);
    return this.#document.update((doc) => {
      const found = findFamily(doc.families, hash);
      if (found === null || found[1].clientId !== clientId) return { outcome: false };
      const families = { ...doc.families };
      delete families[found[0]];
      return { next: { families }, outcome: true };
    });
  }

  /** Revokes a family by id (a replayed authorization code revokes what it issued). */
  async revokeFamily(family: string): Promise<void> {
    await this.#document.update((doc) => {
      if (!Object.hasOwn(doc.families, family)) return { outcome: undefined };
      const families = { ...doc.families };
      delete families[family];
      return { next: { families }, outcome: undefined };
    });
  }

  /**
   * Drops expired families; returns how many. With `signal` (the sweeper's
   * leadership), nothing is written once it has aborted, and a read or write
   * still waiting on the store ends: a replica that lost the Lease mid-pass
   * leaves the pass to the new leader, and a hung store cannot hold it.
   */
  async sweep(signal?: AbortSignal): Promise<number> {
    const now = this.#now();
    return this.#document.update((doc) => {
      if (signal?.aborted) return { outcome: 0 };
      const families = live(doc.families, now);
      const dropped = Object.keys(doc.families).length - Object.keys(families).length;
      return dropped === 0 ? { outcome: 0 } : { next: { families }, outcome: dropped };
    }, signal);
  }

  /** The clients some live family is bound to (their records are pruned last: src/broker/auth/clients/client-record-budget.ts). */
  async clientsWithLiveFamilies(): Promise<Set<string>> {
    const families = live((await this.#document.read()).families, this.#now());
    return new Set(Object.values(families).map((family) => family.clientId));
  }

  async familyCount(): Promise<number> {
    return Object.keys((await this.#document.read()).families).length;
  }
}

function live(families: Record<string, Family>, now: number): Record<string, Family> {
  return Object.fromEntries(Object.entries(families).filter(([, f]) => f.expiresAt > now));
}

function oldestFamily(
  families: Record<string, Family>,
  matches: (f: Family) => boolean = () => true,
): string | undefined {
  let oldest: [string, number] | undefined;
  for (const [id, f] of Object.entries(families))
    if (matches(f) && (oldest === undefined || f.expiresAt < oldest[1])) oldest = [id, f.expiresAt];
  return oldest?.[0];
}

/** At the global cap the user holding the most families pays, so many light users are never evicted by a few heavy ones. */
function oldestOfLargestHolder(families: Record<string, Family>): string | undefined {
  const counts = new Map<string, number>();
  for (const f of Object.values(families)) counts.set(f.identity.subject, (counts.get(f.identity.subject) ?? 0) + 1);
  let largest: [string, number] | undefined;
  for (const entry of counts) if (largest === undefined || entry[1] > largest[1]) largest = entry;
  return largest === undefined ? undefined : oldestFamily(families, (f) => f.identity.subject === largest[0]);
}

function findFamily(families: Record<string, Family>, hash: string): [string, Family] | null {
  for (const entry of Object.entries(families)) {
    if (entry[1].current === hash || entry[1].spent.includes(hash)) return entry;
  }
  return null;
}
