/**
 * An inverted index: key → set of members. Adding or removing one member
 * touches only that member's keys, and a key disappears with its last member.
 */
export class Postings<M> {
  readonly #sets = new Map<string, Set<M>>();

  /** True when `key` was new, so callers can index the key itself. */
  add(key: string, member: M): boolean {
    const set = this.#sets.get(key);
    if (set !== undefined) {
      set.add(member);
      return false;
    }
    this.#sets.set(key, new Set([member]));
    return true;
  }

  /** True when `key` lost its last member and is gone. */
  delete(key: string, member: M): boolean {
    const set = this.#sets.get(key);
    if (set === undefined || !set.delete(member) || set.size > 0) return false;
    this.#sets.delete(key);
    return true;
  }

  get(key: string): ReadonlySet<M> | undefined {
    return this.#sets.get(key);
  }
}
