/**
 * The in-memory short-lived state of one broker replica. Values are copied
 * through JSON on the way in and out, as a shared store would, so no caller
 * can change a stored entry by holding a reference. Bounded: when full, the
 * entry closest to expiry goes first, and expired entries are swept; and each
 * kind of entry anyone may create is admitted up to its own bound, as in Redis.
 */
import { defaultMaxPendingSignIns } from '../config/redis-schema.ts';
import type { Admission, EphemeralStore, JsonValue } from './ephemeral-store.ts';

/**
 * Entries of every kind one replica keeps before the soonest to expire goes:
 * a bound on the process's memory, apart from (and above three times) the
 * per-kind bound on sign-ins anyone may start, so those alone never push out
 * codes or registrations.
 */
export const memoryEphemeralStoreCapacity = 100_000;

type Entry = { json: string; expiresAt: number };

export type MemoryEphemeralStoreOptions = {
  /** Default `memoryEphemeralStoreCapacity`. */
  maxEntries?: number;
  /** `admit`'s bound on each kind (`state.maxPendingSignIns`). */
  maxEntriesPerKind?: number;
  /** Milliseconds clock; injectable for tests. */
  now?: () => number;
};

export class MemoryEphemeralStore implements EphemeralStore {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #maxEntriesPerKind: number;
  /** Per kind, the expiry of each admitted key in admission order (one TTL per kind, so soonest first). */
  readonly #admitted = new Map<string, Map<string, number>>();
  readonly #now: () => number;

  constructor(options: MemoryEphemeralStoreOptions = {}) {
    this.#maxEntries = options.maxEntries ?? memoryEphemeralStoreCapacity;
    this.#maxEntriesPerKind = options.maxEntriesPerKind ?? defaultMaxPendingSignIns;
    this.#now = options.now ?? Date.now;
  }

  get size(): number {
    return this.#entries.size;
  }

  async set(key: string, value: JsonValue, ttlMs: number): Promise<void> {
    if (!(ttlMs > 0)) throw new RangeError(`ttlMs must be positive, got ${ttlMs}`);
    this.#entries.delete(key);
    if (this.#entries.size >= this.#maxEntries) this.#makeRoom();
    this.#entries.set(key, { json: JSON.stringify(value), expiresAt: this.#now() + ttlMs });
  }

  async get(key: string): Promise<JsonValue | null> {
    const entry = this.#live(key);
    return entry === undefined ? null : (JSON.parse(entry.json) as JsonValue);
  }

  async take(key: string): Promise<JsonValue | null> {
    const entry = this.#live(key);
    if (entry === undefined) return null;
    this.#entries.delete(key);
    return JSON.parse(entry.json) as JsonValue;
  }

  async update(key: string, change: (current: JsonValue) => JsonValue | undefined): Promise<JsonValue | null> {
    const entry = this.#live(key);
    if (entry === undefined) return null;
    const next = change(JSON.parse(entry.json) as JsonValue);
    if (next !== undefined) entry.json = JSON.stringify(next);
    return JSON.parse(entry.json) as JsonValue;
  }

  async delete(key: string): Promise<void> {
    this.#entries.delete(key);
  }

  async admit(kind: string, key: string, value: JsonValue, ttlMs: number): Promise<Admission> {
    const now = this.#now();
    const admitted = this.#admitted.get(kind) ?? new Map<string, number>();
    this.#admitted.set(kind, admitted);
    for (const [admittedKey, expiresAt] of admitted) {
      if (expiresAt > now) break;
      admitted.delete(admittedKey);
    }
    admitted.delete(key);
    if (admitted.size >= this.#maxEntriesPerKind)
      return { admitted: false, retryAfterMs: (admitted.values().next().value ?? now) - now };
    await this.set(key, value, ttlMs);
    admitted.set(key, now + ttlMs);
    return { admitted: true };
  }

  /** Drops every expired entry; the broker calls this on a timer. */
  sweep(): number {
    const now = this.#now();
    let dropped = 0;
    for (const [key, entry] of this.#entries) {
      if (entry.expiresAt <= now) {
        this.#entries.delete(key);
        dropped += 1;
      }
    }
    return dropped;
  }

  #live(key: string): Entry | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt > this.#now()) return entry;
    this.#entries.delete(key);
    return undefined;
  }

  #makeRoom(): void {
    if (this.sweep() > 0) return;
    let soonest: [string, number] | undefined;
    for (const [key, entry] of this.#entries)
      if (soonest === undefined || entry.expiresAt < soonest[1]) soonest = [key, entry.expiresAt];
    if (soonest !== undefined) this.#entries.delete(soonest[0]);
  }
}
