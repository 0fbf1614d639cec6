import type { SessionState } from '../mcp/definitions.ts';

/** Keys one session may hold; past it the least recently written key is dropped. */
export const defaultSessionStateMaxKeys = 1024;

/**
 * Per-session memory for tools (e.g. mark_fetch "unchanged" notices). Bounded
 * by key count so that a long session cannot grow without limit; freed with
 * its session. Stateless requests get a fresh one that lives for the request.
 */
export class BoundedSessionState implements SessionState {
  #id: string | undefined;
  readonly #maxKeys: number;
  readonly #values = new Map<string, unknown>();
  readonly #restoreListeners: Array<() => void> = [];
  #changed = false;

  constructor(id?: string, maxKeys = defaultSessionStateMaxKeys) {
    if (!(maxKeys >= 1)) throw new RangeError(`session state maxKeys must be at least 1, got ${maxKeys}`);
    this.#id = id;
    this.#maxKeys = maxKeys;
  }

  get id(): string | undefined {
    return this.#id;
  }

  /** The transport learns the session id only once `initialize` has been answered. */
  bindId(id: string): void {
    this.#id = id;
  }

  get size(): number {
    return this.#values.size;
  }

  get<T>(key: string): T | undefined {
    return this.#values.get(key) as T | undefined;
  }

  /** Whether `set` ran since the last `snapshot` or `restore`. */
  get changed(): boolean {
    return this.#changed;
  }

  set<T>(key: string, value: T): void {
    this.#changed = true;
    this.#values.delete(key);
    this.#values.set(key, value);
    if (this.#values.size > this.#maxKeys) {
      const oldest = this.#values.keys().next();
      if (!oldest.done) this.#values.delete(oldest.value);
    }
  }

  clear(): void {
    this.#values.clear();
  }

  /**
   * The memory as JSON, for a session shared by several replicas
   * (src/broker/http/shared-sessions.ts). Values are JSON data or Maps of it
   * (mark_fetch keeps a Map, for its recency order); Maps are written as
   * `{"$map": [[key, value], ...]}`, in order. `except`: a key kept apart
   * (a shared session's subscriptions, src/broker/http/shared-memory.ts).
   */
  snapshot(except?: string): string {
    this.#changed = false;
    const entries = [...this.#values].filter(([key]) => key !== except);
    return JSON.stringify(entries, (_key, value: unknown) => (value instanceof Map ? { $map: [...value] } : value));
  }

  onRestore(listener: () => void): void {
    this.#restoreListeners.push(listener);
  }

  /**
   * Replaces the memory with a `snapshot` (text that is not one leaves it
   * empty) and the entries kept apart from it, then tells the listeners.
   */
  restore(text: string, apart: ReadonlyArray<readonly [string, unknown]> = []): void {
    this.#replace(text);
    for (const [key, value] of apart) this.#values.set(key, value);
    for (const listener of this.#restoreListeners) listener();
  }

  #replace(text: string): void {
    this.#values.clear();
    this.#changed = false;
    let entries: unknown;
    try {
      entries = JSON.parse(text, (_key, value: unknown) => (isMapCodec(value) ? new Map(value.$map) : value));
    } catch {
      return;
    }
    if (!Array.isArray(entries)) return;
    for (const entry of entries.slice(-this.#maxKeys))
      if (Array.isArray(entry) && entry.length === 2 && typeof entry[0] === 'string')
        this.#values.set(entry[0], entry[1]);
  }
}

function isMapCodec(value: unknown): value is { $map: Array<[unknown, unknown]> } {
  if (typeof value !== 'object' || value === null || !('$map' in value)) return false;
  const entries = (value as { $map: unknown }).$map;
  return Array.isArray(entries) && entries.every((entry) => Array.isArray(entry) && entry.length === 2);
}
