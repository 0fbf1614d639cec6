/**
 * Short-lived sign-in state (device grants, pending authorizations, codes,
 * IdP round trips) behind a small port, so that a shared store (Redis: SET PX,
 * GETDEL, WATCH/MULTI) can back it and any replica can serve any step of a
 * flow. Values are JSON; every entry expires on its own.
 *
 * Contract:
 * - `set` stores `value` under `key` for `ttlMs`, replacing any entry;
 * - `get` returns the live value or `null` (expired entries are absent);
 * - `take` returns the live value and removes it in one atomic step, so a
 *   single-use code can be redeemed once however many requests race;
 * - `update` replaces the live value with `change(value)` atomically, keeping
 *   its expiry; `change` returns `undefined` to leave it, and may run more than
 *   once. It returns the value after the call, or `null` when there was none;
 *   then no run of `change` was applied, though one may have run on a value
 *   that vanished before it could be written. A caller that learns an outcome
 *   from `change` takes it through `updateDeciding` (decided-update.ts).
 * - `admit` is `set` for an entry anyone may create without signing in: it is
 *   refused while `maxEntriesPerKind` entries of the same `kind` were admitted
 *   and have not expired (an entry taken or deleted early still counts until
 *   its expiry), so a flood cannot fill the store; the check and the write are
 *   one atomic step, however many replicas race.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** Refused: how long until the oldest entry of the kind expires and frees a place. */
export type Admission = { admitted: true } | { admitted: false; retryAfterMs: number };

export interface EphemeralStore {
  set(key: string, value: JsonValue, ttlMs: number): Promise<void>;
  get(key: string): Promise<JsonValue | null>;
  take(key: string): Promise<JsonValue | null>;
  update(key: string, change: (current: JsonValue) => JsonValue | undefined): Promise<JsonValue | null>;
  delete(key: string): Promise<void>;
  admit(kind: string, key: string, value: JsonValue, ttlMs: number): Promise<Admission>;
}
