/**
 * The words of each section line, kept at indexing so a row's snippet (snippet.ts)
 * is found without scanning the section's text once per query stem.
 *
 * A stem is a run of word characters (letters, numbers, `_`) or one Han or kana
 * character (tokenize.ts), so wherever it occurs in a lowercase line it lies
 * inside one maximal run of such characters: the line holds the stem exactly when
 * one of the line's runs does. Runs are numbered in one table shared by every
 * section of an index, so a query tests each distinct run once, whatever the
 * number of rows and sections that hold it.
 */
import { cjkClass } from './tokenize.ts';

/** A run holds letters, numbers, `_`, and the Han and kana characters tokenize.ts makes single tokens of. */
const runCharacter = new RegExp(`^[\\p{L}\\p{N}_${cjkClass}]$`, 'u');
const runOnly = new RegExp(`^[\\p{L}\\p{N}_${cjkClass}]+$`, 'u');

/** Per UTF-16 unit below the surrogates: 0 unknown, 1 run character, 2 not. */
const bmpClass = new Uint8Array(0xd800);

function isRunCodePoint(code: number): boolean {
  if (code < 0xd800) {
    let known = bmpClass[code] as number;
    if (known === 0) {
      known = runCharacter.test(String.fromCharCode(code)) ? 1 : 2;
      bmpClass[code] = known;
    }
    return known === 1;
  }
  return runCharacter.test(String.fromCodePoint(code));
}

/** True when every character of `s` can sit in a run (any stem tokenize.ts makes). */
export function isRunText(s: string): boolean {
  return runOnly.test(s);
}

/**
 * A 32-bit set of a string's characters: a-z one bit each, digits one bit, every
 * other character one of five bits by its code. A substring's set is a subset of
 * the whole's, so a run lacking a bit of a stem's set cannot hold the stem.
 */
export function signatureOf(s: string): number {
  let bits = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x61 && c <= 0x7a) bits |= 1 << (c - 0x61);
    else if (c >= 0x30 && c <= 0x39) bits |= 1 << 26;
    else bits |= 1 << (27 + (c % 5));
  }
  return bits;
}

/**
 * One text's lines and their runs, as numbers in a WordTable. `table` holds the
 * text's distinct run numbers (`wordCount` of them), then the end of each line's
 * entries, then the entries: the run numbers of each line, distinct within it.
 */
export interface LineWords {
  wordCount: number;
  lineCount: number;
  table: Int32Array;
}

/**
 * Run numbers shared by the sections of one index. A number is freed when the last
 * section holding its run is released, so replacing documents does not grow it.
 */
export class WordTable {
  readonly #numberOf = new Map<string, number>();
  /** By number; '' once freed. */
  readonly #words: string[] = [];
  #signatures = new Int32Array(1024);
  /** Sections holding each run. */
  #holders = new Int32Array(1024);
  readonly #free: number[] = [];
  /** Per number: the term mask of the run under the query of generation `#stamps[n]`. */
  #masks = new Int32Array(1024);
  #stamps = new Int32Array(1024);
  #generation = 0;

  /** Runs in use. */
  get size(): number {
    return this.#numberOf.size;
  }

  /** Numbers `text`'s runs (lowercase, lines split on '\n'); release it when the text goes. */
  add(text: string): LineWords {
    const distinct: number[] = [];
    const lineEnds: number[] = [];
    const entries: number[] = [];
    // Per run number, the last line (+1) it was entered for, and whether this text holds it.
    const lastLine = new Map<number, number>();
    // Lowercasing keeps every '\n' and is context-free across one (a final sigma
    // before a newline is final either way), so line i of the lowercase text is
    // line i of `text`, lowercased.
    const lower = text.toLowerCase();
    let line = 1;
    let start = -1;
    const endRun = (end: number) => {
      const n = this.#obtain(lower.slice(start, end));
      const last = lastLine.get(n);
      if (last === undefined) distinct.push(n);
      if (last !== line) {
        lastLine.set(n, line);
        entries.push(n);
      }
      start = -1;
    };
    for (let i = 0; i < lower.length; i++) {
      let code = lower.charCodeAt(i);
      let width = 1;
      if (code >= 0xd800 && code <= 0xdbff && i + 1 < lower.length) {
        const low = lower.charCodeAt(i + 1);
        if (low >= 0xdc00 && low <= 0xdfff) {
          code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
          width = 2;
        }
      }
      if (isRunCodePoint(code)) {
        if (start < 0) start = i;
      } else {
        if (start >= 0) endRun(i);
        if (code === 0x0a) {
          lineEnds.push(entries.length);
          line++;
        }
      }
      i += width - 1;
    }
    if (start >= 0) endRun(lower.length);
    lineEnds.push(entries.length);
    for (const n of distinct) (this.#holders[n] as number)++;
    const table = new Int32Array(distinct.length + lineEnds.length + entries.length);
    table.set(distinct, 0);
    table.set(lineEnds, distinct.length);
    table.set(entries, distinct.length + lineEnds.length);
    return { wordCount: distinct.length, lineCount: lineEnds.length, table };
  }

  /** The text of `lines` is gone: its runs lose a holder. */
  release(lines: LineWords): void {
    for (let i = 0; i < lines.wordCount; i++) {
      const n = lines.table[i] as number;
      const left = (this.#holders[n] as number) - 1;
      this.#holders[n] = left;
      if (left === 0) {
        this.#numberOf.delete(this.#words[n] as string);
        this.#words[n] = '';
        this.#free.push(n);
      }
    }
  }

  /**
   * The generation for a query of `generation` to settle under: its own while no later query has
   * begun (the masks it settled still stand), else a new one, taking the table back (its runs are
   * settled again). The one place this rule lives: `settle` trusts the generation it is given.
   */
  resume(generation: number): number {
    return generation === this.#generation ? generation : this.newQuery();
  }

  /** A new query: every run's term mask is unknown again. */
  newQuery(): number {
    if (this.#generation === 0x7fffffff) {
      this.#stamps.fill(0);
      this.#generation = 0;
    }
    return ++this.#generation;
  }

  /**
   * The term masks of `lines`' runs under the query of `generation` (bit i: stem i
   * occurs in the run), stored in `masks()` by run number. `stems` and `signatures`
   * are the query's, `skip` the bits of stems not to test here. `generation` is the
   * current one, from `newQuery` or `resume`.
   */
  settle(
    lines: LineWords,
    generation: number,
    stems: readonly string[],
    signatures: Int32Array,
    skip: number,
  ): Int32Array {
    const masks = this.#masks;
    const stamps = this.#stamps;
    const table = lines.table;
    for (let i = 0; i < lines.wordCount; i++) {
      const n = table[i] as number;
      if (stamps[n] === generation) continue;
      stamps[n] = generation;
      const signature = this.#signatures[n] as number;
      const word = this.#words[n] as string;
      let mask = 0;
      for (let s = 0; s < stems.length; s++) {
        const bit = 1 << s;
        const need = signatures[s] as number;
        if ((skip & bit) === 0 && (signature & need) === need && word.includes(stems[s] as string)) mask |= bit;
      }
      masks[n] = mask;
    }
    return masks;
  }

  #obtain(word: string): number {
    const known = this.#numberOf.get(word);
    if (known !== undefined) return known;
    const n = this.#free.pop() ?? this.#words.length;
    // A copy, not a slice of the whole lowercase text (V8 slices strings of 13+ characters).
    const own = word.length < 13 ? word : Buffer.from(word, 'utf8').toString('utf8');
    this.#numberOf.set(own, n);
    this.#words[n] = own;
    this.#grow(n + 1);
    this.#signatures[n] = signatureOf(own);
    this.#holders[n] = 0;
    this.#stamps[n] = 0;
    return n;
  }

  #grow(needed: number): void {
    if (needed <= this.#signatures.length) return;
    const capacity = Math.max(needed, this.#signatures.length * 2);
    const grown = (a: Int32Array) => {
      const next = new Int32Array(capacity);
      next.set(a);
      return next;
    };
    this.#signatures = grown(this.#signatures);
    this.#holders = grown(this.#holders);
    this.#masks = grown(this.#masks);
    this.#stamps = grown(this.#stamps);
  }
}
