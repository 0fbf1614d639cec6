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
 *   once. It returns the value after the call, or `null` when there was none.
 */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

export interface EphemeralStore {
  set(key: string, value: JsonValue, ttlMs: number): Promise<void>;
  get(key: string): Promise<JsonValue | null>;
  take(key: string): Promise<JsonValue | null>;
  update(key: string, change: (current: JsonValue) => JsonValue | undefined): Promise<JsonValue | null>;
  delete(key: string): Promise<void>;
}
