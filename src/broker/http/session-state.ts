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

  set<T>(key: string, value: T): void {
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
}
