import { compareBytes } from '../protocol/byte-order.ts';

/**
 * content-hash → path for current, live documents (the `/sha256-…` FETCH).
 * When several documents share a body, the smallest path (byte order) answers,
 * as in the Go server. Derived state: rebuilt at start-up, updated on every
 * write, archive and unarchive.
 */
export class HashIndex {
  readonly #pathsByHash = new Map<string, Set<string>>();
  readonly #hashByPath = new Map<string, string>();

  set(path: string, contentHash: string): void {
    this.remove(path);
    let paths = this.#pathsByHash.get(contentHash);
    if (paths === undefined) {
      paths = new Set();
      this.#pathsByHash.set(contentHash, paths);
    }
    paths.add(path);
    this.#hashByPath.set(path, contentHash);
  }

  remove(path: string): void {
    const hash = this.#hashByPath.get(path);
    if (hash === undefined) return;
    this.#hashByPath.delete(path);
    const paths = this.#pathsByHash.get(hash);
    paths?.delete(path);
    if (paths?.size === 0) this.#pathsByHash.delete(hash);
  }

  /** The smallest path holding this body among those `visible` accepts. */
  lookup(contentHash: string, visible: (path: string) => boolean = () => true): string | undefined {
    const paths = this.#pathsByHash.get(contentHash);
    if (paths === undefined) return undefined;
    let smallest: string | undefined;
    for (const path of paths) {
      if ((smallest === undefined || compareBytes(path, smallest) < 0) && visible(path)) smallest = path;
    }
    return smallest;
  }

  get size(): number {
    return this.#hashByPath.size;
  }
}
