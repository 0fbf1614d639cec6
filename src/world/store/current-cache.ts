import type { DocState } from './types.ts';

/**
 * Current versions kept in memory so a FETCH does not go to disk. Safe because
 * this process is the only writer of its root (as with the Go server): every
 * write and archive transition invalidates its path before touching the disk
 * and refills it afterwards. A per-path generation stops a read that started
 * before a write from putting the older state back when it finishes.
 * Bounded by the bytes of the versions it holds; least recently used goes first.
 */
export class CurrentCache {
  readonly #entries = new Map<string, DocState>();
  readonly #generations = new Map<string, number>();
  readonly #maxBytes: number;
  #bytes = 0;

  constructor(maxBytes = 32 * 1024 * 1024) {
    this.#maxBytes = maxBytes;
  }

  get(path: string): DocState | undefined {
    const doc = this.#entries.get(path);
    if (doc === undefined) return undefined;
    this.#entries.delete(path);
    this.#entries.set(path, doc);
    return doc;
  }

  /** The token a reader passes back to `fill`, taken before it starts reading. */
  generation(path: string): number {
    return this.#generations.get(path) ?? 0;
  }

  /** Stores what a reader found, unless a write to the path began since `generation`. */
  fill(path: string, doc: DocState, generation: number): void {
    if (this.generation(path) !== generation) return;
    this.#put(path, doc);
  }

  /** A write is about to change `path`: drop it and make in-flight reads stale. */
  invalidate(path: string): void {
    this.#generations.set(path, this.generation(path) + 1);
    this.#drop(path);
  }

  /** The state a completed write left behind. */
  set(path: string, doc: DocState): void {
    this.#put(path, doc);
  }

  #put(path: string, doc: DocState): void {
    this.#drop(path);
    const size = doc.current.raw.byteLength;
    if (size > this.#maxBytes / 8) return;
    this.#entries.set(path, doc);
    this.#bytes += size;
    for (const [oldest, old] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= old.current.raw.byteLength;
    }
  }

  #drop(path: string): void {
    const old = this.#entries.get(path);
    if (old === undefined) return;
    this.#entries.delete(path);
    this.#bytes -= old.current.raw.byteLength;
  }
}
