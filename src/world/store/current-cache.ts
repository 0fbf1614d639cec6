import { LRUCache } from 'lru-cache';
import type { DocState } from './types.ts';

/**
 * Current versions kept in memory so a FETCH does not go to disk. Safe because
 * this process is the only writer of its root (as with the Go server): every
 * write and archive transition invalidates its path before touching the disk
 * and refills it afterwards. A per-path generation stops a read that started
 * before a write from putting the older state back when it finishes.
 * Bounded by the bytes of the versions it holds; least recently used goes first
 * (lru-cache). A version over an eighth of the bound is not kept.
 */
export class CurrentCache {
  readonly #entries: LRUCache<string, DocState>;
  readonly #generations = new Map<string, number>();

  constructor(maxBytes = 32 * 1024 * 1024) {
    this.#entries = new LRUCache<string, DocState>({
      maxSize: maxBytes,
      maxEntrySize: maxBytes / 8,
      // lru-cache sizes are positive: an empty version counts one byte.
      sizeCalculation: (doc) => Math.max(1, doc.current.raw.byteLength),
    });
  }

  get(path: string): DocState | undefined {
    return this.#entries.get(path);
  }

  /** The token a reader passes back to `fill`, taken before it starts reading. */
  generation(path: string): number {
    return this.#generations.get(path) ?? 0;
  }

  /** Stores what a reader found, unless a write to the path began since `generation`. */
  fill(path: string, doc: DocState, generation: number): void {
    if (this.generation(path) !== generation) return;
    // Over maxEntrySize, set drops what the path held and keeps nothing.
    this.#entries.set(path, doc);
  }

  /** A write is about to change `path`: drop it and make in-flight reads stale. */
  invalidate(path: string): void {
    this.#generations.set(path, this.generation(path) + 1);
    this.#entries.delete(path);
  }

  /** The state a completed write left behind. */
  set(path: string, doc: DocState): void {
    this.#entries.set(path, doc);
  }
}
