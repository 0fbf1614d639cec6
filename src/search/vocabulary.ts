/**
 * The index vocabulary: one entry per distinct token with its postings, and a sorted
 * view for word-boundary prefix expansion (spexcode `ranker.ts`).
 *
 * The sorted view is two arrays, a large one and a small recent one, so an
 * incremental upsert inserts new words in O(recent) and the large array is merged
 * only every `recentLimit` new words.
 */

/** Posting field bits, per (word, document). */
export const FieldBit = { title: 1, name: 2, tag: 4, description: 8 } as const;

export interface WordEntry {
  readonly word: string;
  /** Live documents holding the word in any field: the exact, incremental df. */
  df: number;
  /** Section postings, packed: sectionId × 65536 + trailFlag (0x8000) + min(tf, 0x7fff). */
  body: number[];
  /** Field postings, packed: docNum × 16 + FieldBit mask. */
  fields: number[];
}

export const trailFlag = 0x8000;
export const maxPackedTf = 0x7fff;
const sectionShift = 65536;
const docShift = 16;

export function packBody(sectionId: number, tf: number, inTrail: boolean): number {
  return sectionId * sectionShift + (inTrail ? trailFlag : 0) + Math.min(tf, maxPackedTf);
}
export function bodySection(packed: number): number {
  return Math.floor(packed / sectionShift);
}
export function bodyLow(packed: number): number {
  return packed % sectionShift;
}
/** The same posting moved to another section id (compaction). */
export function rebaseBody(packed: number, sectionId: number): number {
  return sectionId * sectionShift + bodyLow(packed);
}
export function packField(docNum: number, bits: number): number {
  return docNum * docShift + bits;
}
export function fieldDoc(packed: number): number {
  return Math.floor(packed / docShift);
}
export function fieldBits(packed: number): number {
  return packed % docShift;
}

const recentLimit = 1024;

export class Vocabulary {
  readonly #entries = new Map<string, WordEntry>();
  #sorted: string[] = [];
  #recent: string[] = [];

  get size(): number {
    return this.#entries.size;
  }

  get(word: string): WordEntry | undefined {
    return this.#entries.get(word);
  }

  entries(): IterableIterator<WordEntry> {
    return this.#entries.values();
  }

  obtain(word: string): WordEntry {
    let entry = this.#entries.get(word);
    if (entry === undefined) {
      entry = { word, df: 0, body: [], fields: [] };
      this.#entries.set(word, entry);
      this.#recent.splice(lowerBound(this.#recent, word), 0, word);
      if (this.#recent.length > recentLimit) this.#mergeRecent();
    }
    return entry;
  }

  /** Live entries whose word starts with `prefix`, in word order. */
  withPrefix(prefix: string): WordEntry[] {
    const out: WordEntry[] = [];
    for (const list of [this.#sorted, this.#recent]) {
      for (let i = lowerBound(list, prefix); i < list.length; i++) {
        const word = list[i] ?? '';
        if (!word.startsWith(prefix)) break;
        const entry = this.#entries.get(word);
        if (entry !== undefined && entry.df > 0) out.push(entry);
      }
    }
    return out;
  }

  /** Forgets words no live document holds (called by compaction). */
  prune(): void {
    for (const [word, entry] of this.#entries) if (entry.df === 0) this.#entries.delete(word);
    this.#sorted = [...this.#entries.keys()].sort(compareCodeUnits);
    this.#recent = [];
  }

  #mergeRecent(): void {
    const merged: string[] = new Array<string>(this.#sorted.length + this.#recent.length);
    let i = 0;
    let j = 0;
    let k = 0;
    while (i < this.#sorted.length || j < this.#recent.length) {
      const a = this.#sorted[i];
      const b = this.#recent[j];
      if (b === undefined || (a !== undefined && a < b)) {
        merged[k++] = a ?? '';
        i++;
      } else {
        merged[k++] = b;
        j++;
      }
    }
    this.#sorted = merged;
    this.#recent = [];
  }
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function lowerBound(list: string[], key: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((list[mid] ?? '') < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
