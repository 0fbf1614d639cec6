import type { NodeMcpHandler } from './node-mcp-adapter.ts';
import type { BoundedSessionState } from './session-state.ts';
import type { SharedMemory } from './shared-memory.ts';

/**
 * What one stateful MCP session holds on this replica; `close` frees its
 * transport and server. A shared session (src/broker/http/shared-sessions.ts)
 * is this replica's copy of a record in Redis: closing the copy ends nothing,
 * and `shared` says which saved memory it holds.
 */
export type Session = {
  id: string;
  /** The subject that opened it: a session is only usable by its owner (MCP security best practices, session hijacking). */
  subject: string;
  state: BoundedSessionState;
  transport: { handleRequest: NodeMcpHandler };
  close: () => Promise<void>;
  shared?: SharedMemory;
  /**
   * Whether the client's standalone event stream (GET) is open on this copy:
   * the session is then in use however long no request comes, since its
   * notifications (resource updates) travel on that stream.
   */
  streaming?: () => boolean;
};

export type SessionStoreOptions = {
  /** Sessions kept at most; past it a subject may only replace its own (see `canOpen`). */
  maxSessions?: number;
  /** Sessions one subject may keep; past it that subject's least recently used one is closed. */
  maxSessionsPerSubject?: number;
  /** A session unused this long is closed by `sweep()`. */
  idleTtlMs?: number;
  now?: () => number;
  onSizeChange?: (size: number) => void;
  onEvict?: (session: Session, reason: EvictReason) => void;
  /**
   * Which of these shared copies (`Session.shared`), idle on this replica, are
   * still in use through other replicas. The sweep asks before closing them
   * and keeps those (the client's event stream may be on this copy while its
   * calls go elsewhere); absent, they are closed like the others.
   */
  inUseElsewhere?: (ids: readonly string[]) => Promise<ReadonlySet<string>>;
  /**
   * Renews the shared records of these copies (`Session.shared`), kept in use
   * by the event stream open on this replica, whose record in the shared
   * directory would otherwise expire after the idle TTL like an idle one.
   * Resolves to the ids it renewed: only those count as used now, so a record
   * the directory did not answer for is asked about again by the next sweep.
   */
  renewShared?: (ids: readonly string[]) => Promise<ReadonlySet<string>>;
};

export type EvictReason = 'idle' | 'capacity' | 'subject-capacity' | 'shutdown' | 'ended' | 'ended-elsewhere';

export const defaultMaxSessions = 1000;
export const defaultMaxSessionsPerSubject = 20;
export const defaultSessionIdleTtlMs = 30 * 60_000;

type Entry = { session: Session; lastUsed: number };

/**
 * Stateful sessions, bounded three ways: total count, count per subject, and
 * idle time. Clients that vanish without DELETE (the Go broker's
 * mark3labs/mcp-go#723 leak) are closed by the idle sweep or pushed out by their own
 * subject's newer ones. One subject never closes another's session: when the
 * store is full, a subject with no session of its own is told no room
 * (`canOpen`), and the endpoint serves it without a session instead.
 */
export class SessionStore {
  readonly #max: number;
  readonly #maxPerSubject: number;
  readonly #idleTtlMs: number;
  readonly #now: () => number;
  readonly #onSizeChange: (size: number) => void;
  readonly #onEvict: NonNullable<SessionStoreOptions['onEvict']>;
  readonly #inUseElsewhere: NonNullable<SessionStoreOptions['inUseElsewhere']>;
  readonly #renewShared: NonNullable<SessionStoreOptions['renewShared']>;
  readonly #entries = new Map<string, Entry>();
  /** The sweep under way, if one is (`sweep`). */
  #sweeping: Promise<number> | undefined;

  constructor(options: SessionStoreOptions = {}) {
    this.#max = positive('maxSessions', options.maxSessions ?? defaultMaxSessions);
    this.#maxPerSubject = positive(
      'maxSessionsPerSubject',
      options.maxSessionsPerSubject ?? defaultMaxSessionsPerSubject,
    );
    this.#idleTtlMs = positive('idleTtlMs', options.idleTtlMs ?? defaultSessionIdleTtlMs);
    this.#now = options.now ?? (() => performance.now());
    this.#onSizeChange = options.onSizeChange ?? (() => {});
    this.#onEvict = options.onEvict ?? (() => {});
    this.#inUseElsewhere = options.inUseElsewhere ?? (async () => new Set());
    this.#renewShared = options.renewShared ?? (async (ids) => new Set(ids));
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The bounds this store keeps, for a cluster-wide directory to keep the same ones. */
  get limits(): { maxSessions: number; maxSessionsPerSubject: number; idleTtlMs: number } {
    return { maxSessions: this.#max, maxSessionsPerSubject: this.#maxPerSubject, idleTtlMs: this.#idleTtlMs };
  }

  get idleTtlMs(): number {
    return this.#idleTtlMs;
  }

  /** The session, if it exists and belongs to `subject`; using it makes it the most recent. */
  use(id: string, subject: string): Session | undefined {
    const entry = this.#entries.get(id);
    if (entry === undefined || entry.session.subject !== subject) return undefined;
    this.#markUsed(id, entry);
    return entry.session;
  }

  /** This replica's copy of session `id`, whoever owns it, without touching its recency. */
  peek(id: string): Session | undefined {
    return this.#entries.get(id)?.session;
  }

  /** This replica's shared copies (`Session.shared`) whose client's event stream is open here. */
  streamingShared(): Session[] {
    return [...this.#entries.values()]
      .map((entry) => entry.session)
      .filter((session) => session.shared !== undefined && session.streaming?.() === true);
  }

  /**
   * Whether `subject` may open a session now: below the total cap (after
   * closing sessions past their idle TTL), or holding one of its own to replace.
   */
  canOpen(subject: string): boolean {
    // Only sessions this replica alone holds: a shared directory keeps the limits for the cluster instead.
    if (this.#entries.size >= this.#max)
      for (const [id, entry] of this.#idle())
        if (entry.session.shared === undefined) void this.#close(id, entry, 'idle');
    return this.#entries.size < this.#max || this.#countOf(subject) > 0;
  }

  /**
   * Adds a session, closing the subject's own least recently used ones to stay
   * within both caps. Returns false, adding nothing, when the store is full of
   * other subjects' sessions (possible only when `canOpen` raced another add),
   * or when it already holds a session with this id: replacing that one would
   * leave it open (with the client's event stream, say) where neither `drop`,
   * the sweep nor `closeAll` can reach it.
   */
  add(session: Session): boolean {
    if (this.#entries.has(session.id)) return false;
    const mine = (entry: Entry) => entry.session.subject === session.subject;
    let own = this.#countOf(session.subject);
    for (; own >= this.#maxPerSubject; own -= 1) this.#evictOldest(mine, 'subject-capacity');
    for (; this.#entries.size >= this.#max && own > 0; own -= 1) this.#evictOldest(mine, 'capacity');
    if (this.#entries.size >= this.#max) return false;
    this.#entries.set(session.id, { session, lastUsed: this.#now() });
    this.#onSizeChange(this.#entries.size);
    return true;
  }

  /** Closes this replica's copy of a session that ended elsewhere (DELETE on another replica, expiry, eviction). */
  drop(id: string): void {
    const entry = this.#entries.get(id);
    if (entry !== undefined) void this.#close(id, entry, 'ended-elsewhere');
  }

  /**
   * Closes the copy of a session whose client ended it here though the transport
   * did not: a DELETE the SDK refused after the shared record was deleted
   * (src/broker/http/mcp-endpoint.ts, `endShared`). One it accepted is gone already (`forget`).
   */
  end(id: string): void {
    const entry = this.#entries.get(id);
    if (entry !== undefined) void this.#close(id, entry, 'ended');
  }

  /** Forgets a session the client ended (DELETE) or whose transport closed; does not close it again. */
  forget(id: string): void {
    if (this.#entries.delete(id)) this.#onSizeChange(this.#entries.size);
  }

  /**
   * Closes every session idle for longer than the TTL; returns how many.
   * A session whose event stream is open is never closed here (`#idle`
   * skips it) and counts as used now once half the TTL has passed without a
   * request; a shared one's record is renewed then, and it counts as used
   * (from when the renewal was sent, `#keepStreaming`) only once the
   * directory renewed it: one the directory did not answer for
   * is asked about again by the next sweep, a quarter TTL later, while its
   * record still has a quarter TTL or more to live. That record expires one
   * TTL after its last renewal, so it outlives a listening client only while
   * sweeps come less than half a TTL apart: they come every quarter TTL
   * clamped to 1–60 s (src/broker/http/mcp-listener.ts, `startSweeping`),
   * which holds for an idle TTL over 2 s; under it the directory may end a
   * shared session its client still listens on. The caps end such sessions
   * at any TTL. Shared copies among the idle
   * ones are kept while `inUseElsewhere` says their session is in use through
   * other replicas (one question for all of them), and count as used now;
   * when it cannot answer they are kept until the next sweep asks again.
   */
  sweep(): Promise<number> {
    // One at a time: a sweep due while the last still waits on the directory joins it rather than
    // asking again (the timer in src/broker/http/mcp-listener.ts fires regardless).
    this.#sweeping ??= this.#sweepOnce().finally(() => {
      this.#sweeping = undefined;
    });
    return this.#sweeping;
  }

  async #sweepOnce(): Promise<number> {
    await this.#keepStreaming();
    const idle = this.#idle();
    const shared = idle.filter(([, entry]) => entry.session.shared !== undefined).map(([id]) => id);
    const inUse =
      shared.length === 0 ? new Set<string>() : await this.#inUseElsewhere(shared).catch(() => new Set(shared));
    const cutoff = this.#now() - this.#idleTtlMs;
    let closed = 0;
    for (const [id, entry] of idle) {
      // Used, closed or replaced while the question was out.
      if (this.#entries.get(id) !== entry || entry.lastUsed > cutoff) continue;
      if (inUse.has(id)) {
        this.#markUsed(id, entry);
        continue;
      }
      void this.#close(id, entry, 'idle');
      closed += 1;
    }
    return closed;
  }

  async closeAll(): Promise<void> {
    const entries = [...this.#entries];
    await Promise.all(entries.map(([id, entry]) => this.#close(id, entry, 'shutdown')));
  }

  /** The sessions idle past the TTL, oldest first; none whose event stream is open. */
  #idle(): Array<[string, Entry]> {
    const cutoff = this.#now() - this.#idleTtlMs;
    const idle: Array<[string, Entry]> = [];
    // Oldest first: stop at the first session used after the cutoff.
    for (const pair of this.#entries) {
      if (pair[1].lastUsed > cutoff) break;
      if (pair[1].session.streaming?.() !== true) idle.push(pair);
    }
    return idle;
  }

  /**
   * Marks used now the sessions with an open event stream unused for half the
   * TTL; a shared one only once its record is renewed. One whose renewal
   * failed keeps its last use, so the next sweep renews it again: marked used
   * regardless, it would wait another half TTL, by when its record, renewed
   * last a half TTL before, would have expired and the directory ended the
   * session under its listening client.
   */
  async #keepStreaming(): Promise<void> {
    const sentAt = this.#now();
    const cutoff = sentAt - this.#idleTtlMs / 2;
    const kept: Array<[string, Entry]> = [];
    // Every entry, not oldest first up to the cutoff: a renewed copy is stamped with `sentAt`, earlier
    // than a request the directory's round trip let in, so the map's order by last use may be off by it.
    for (const pair of this.#entries) {
      if (pair[1].lastUsed <= cutoff && pair[1].session.streaming?.() === true) kept.push(pair);
    }
    const shared = kept.filter(([, entry]) => entry.session.shared !== undefined);
    for (const [id, entry] of kept) if (entry.session.shared === undefined) this.#markUsed(id, entry);
    if (shared.length === 0) return;
    const renewed = await this.#renewShared(shared.map(([id]) => id)).catch(() => new Set<string>());
    // Used as of when the renewal was sent, not answered: the record's TTL restarted no later than
    // that, so the next renewal comes due half a TTL after it and a failed one is retried a quarter
    // TTL later, before the record expires (stamped on the answer, after a Redis round trip and the
    // awaited load of stale copies, src/broker/http/mcp-endpoint.ts, it slipped to three quarters).
    // Closed or replaced while the directory answered: that entry is no longer this one.
    for (const [id, entry] of shared)
      if (renewed.has(id) && this.#entries.get(id) === entry) this.#markUsed(id, entry, sentAt);
  }

  /** Makes the entry the most recently used (the map's order is by last use, give or take a renewal's round trip). */
  #markUsed(id: string, entry: Entry, at = this.#now()): void {
    this.#entries.delete(id);
    entry.lastUsed = at;
    this.#entries.set(id, entry);
  }

  #countOf(subject: string): number {
    let count = 0;
    for (const entry of this.#entries.values()) if (entry.session.subject === subject) count += 1;
    return count;
  }

  #evictOldest(matches: (entry: Entry) => boolean, reason: 'capacity' | 'subject-capacity'): void {
    for (const [id, entry] of this.#entries) {
      if (!matches(entry)) continue;
      void this.#close(id, entry, reason);
      return;
    }
  }

  #close(id: string, entry: Entry, reason: EvictReason): Promise<void> {
    this.#entries.delete(id);
    entry.session.state.clear();
    this.#onSizeChange(this.#entries.size);
    this.#onEvict(entry.session, reason);
    // A transport that fails to close has nothing left to free; never let it crash the sweep.
    return entry.session.close().catch(() => {});
  }
}

function positive(name: string, value: number): number {
  if (!(value > 0) || !Number.isFinite(value)) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return value;
}
