/**
 * Bounded best-rows selection: keeps the `limit` best candidates in a heap instead
 * of sorting every candidate, so a query that touches most of a large corpus stays
 * cheap. Read authorization is asked only of candidates good enough to enter, and
 * before they enter (Mark SPEC §2.7: rows are filtered before the limit).
 */
import type { DocRecord } from './doc-record.ts';

export interface Candidate {
  doc: DocRecord;
  /** Index into doc.sections, or -1 for the bare-path row. */
  section: number;
  score: number;
}

/** Score descending, then path, then anchor ascending (Go `bodymatch.go` order). */
export function byRank(a: Candidate, b: Candidate): number {
  if (a.score !== b.score) return b.score - a.score;
  if (a.doc.id !== b.doc.id) return a.doc.id < b.doc.id ? -1 : 1;
  const anchorA = a.doc.sections[a.section]?.anchor ?? '';
  const anchorB = b.doc.sections[b.section]?.anchor ?? '';
  return anchorA < anchorB ? -1 : anchorA > anchorB ? 1 : 0;
}

export class TopRows {
  readonly #limit: number;
  readonly #allow: ((id: string) => boolean) | undefined;
  readonly #allowed = new Map<string, boolean>();
  /** Min-heap on rank: the worst kept row sits at index 0. */
  readonly #heap: Candidate[] = [];

  constructor(limit: number, allow?: (id: string) => boolean) {
    this.#limit = limit;
    this.#allow = allow;
  }

  offer(doc: DocRecord, section: number, score: number): void {
    if (this.#limit === 0) return;
    const candidate = { doc, section, score };
    const full = this.#heap.length >= this.#limit;
    if (full && byRank(candidate, this.#heap[0] as Candidate) >= 0) return;
    if (!this.#isAllowed(doc.id)) return;
    if (!full) {
      this.#heap.push(candidate);
      this.#siftUp(this.#heap.length - 1);
    } else {
      this.#heap[0] = candidate;
      this.#siftDown(0);
    }
  }

  /** The kept rows, best first. */
  rows(): Candidate[] {
    return [...this.#heap].sort(byRank);
  }

  #isAllowed(id: string): boolean {
    if (this.#allow === undefined) return true;
    let ok = this.#allowed.get(id);
    if (ok === undefined) {
      ok = this.#allow(id);
      this.#allowed.set(id, ok);
    }
    return ok;
  }

  /** True when a ranks below b (is worse), so it belongs nearer the heap top. */
  #worse(i: number, j: number): boolean {
    return byRank(this.#heap[i] as Candidate, this.#heap[j] as Candidate) > 0;
  }

  #swap(i: number, j: number): void {
    const h = this.#heap;
    [h[i], h[j]] = [h[j] as Candidate, h[i] as Candidate];
  }

  #siftUp(i: number): void {
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.#worse(i, parent)) return;
      this.#swap(i, parent);
      i = parent;
    }
  }

  #siftDown(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let worst = i;
      if (l < this.#heap.length && this.#worse(l, worst)) worst = l;
      if (r < this.#heap.length && this.#worse(r, worst)) worst = r;
      if (worst === i) return;
      this.#swap(i, worst);
      i = worst;
    }
  }
}
