/**
 * Per-lookup scores by document id, in typed arrays reused across lookups.
 * Epoch stamps stand in for clearing: a slot counts only if it was written in
 * the current lookup, and a term counts once per document however many of
 * its words or tags matched. Stamps are doubles, exact up to 2^53, so they
 * never wrap in practice.
 */
export class ScoreBoard {
  readonly touched: number[] = [];
  #scores = new Uint8Array(1024);
  #epochs = new Float64Array(1024);
  #termStamps = new Float64Array(1024);
  #epoch = 0;
  #termStamp = 0;

  /** Starts a lookup over ids below `capacity`. */
  begin(capacity: number): void {
    if (capacity > this.#scores.length) this.#grow(capacity);
    this.touched.length = 0;
    this.#epoch++;
  }

  /** Starts the next distinct term of the current lookup. */
  nextTerm(): void {
    this.#termStamp++;
  }

  /** The current term matched document `id`. */
  hit(id: number): void {
    if (this.#termStamps[id] === this.#termStamp) return;
    this.#termStamps[id] = this.#termStamp;
    if (this.#epochs[id] !== this.#epoch) {
      this.#epochs[id] = this.#epoch;
      this.#scores[id] = 0;
      this.touched.push(id);
    }
    this.#scores[id]!++;
  }

  /** The current term matched document `id`; counted only if an earlier term already did. */
  hitIfTouched(id: number): void {
    if (this.#epochs[id] === this.#epoch) this.hit(id);
  }

  score(id: number): number {
    return this.#epochs[id] === this.#epoch ? this.#scores[id]! : 0;
  }

  #grow(capacity: number): void {
    let size = this.#scores.length;
    while (size < capacity) size *= 2;
    const grow = <A extends Uint8Array | Float64Array>(old: A, fresh: A): A => {
      fresh.set(old);
      return fresh;
    };
    this.#scores = grow(this.#scores, new Uint8Array(size));
    this.#epochs = grow(this.#epochs, new Float64Array(size));
    this.#termStamps = grow(this.#termStamps, new Float64Array(size));
  }
}
