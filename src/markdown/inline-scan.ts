import { normalizeLabel, unwrapDestination } from './blocks.ts';
import type { NextMatch } from './linear-replace.ts';

/**
 * The pieces of CommonMark inline syntax link extraction needs (§6.1 code
 * spans, §6.3 links, §6.5-6.6 autolinks and raw HTML), each bounded so that
 * hostile input stays linear.
 */

/**
 * Work allowed per block, in characters examined by destination scans, as a
 * multiple of its length: well-formed documents use a small fraction of it; a
 * hostile block (thousands of unclosed `](`) stops yielding links once it is
 * spent instead of going quadratic.
 */
const scanBudgetFactor = 16;
const maxLabelChars = 999; // CommonMark §4.7: a link label has at most 999 characters.

export class BlockScanner {
  readonly #s: string;
  readonly #definitions: ReadonlyMap<string, string>;
  readonly #maxDefinedLabel: number;
  #budget: number;

  constructor(s: string, definitions: ReadonlyMap<string, string>, maxDefinedLabel: number) {
    this.#s = s;
    this.#definitions = definitions;
    this.#maxDefinedLabel = maxDefinedLabel;
    this.#budget = scanBudgetFactor * s.length + 4096;
  }

  get exhausted(): boolean {
    return this.#budget <= 0;
  }

  /** What follows `]`: an inline `(dest "title")`, a full or collapsed reference, or a shortcut reference. */
  target(textStart: number, close: number): { dest: string; end: number } | null {
    const s = this.#s;
    if (s[close + 1] === '(') {
      const inline = this.#inline(close + 2);
      if (inline !== null) return inline;
    }
    if (this.#definitions.size === 0) return null;
    if (s[close + 1] === '[') {
      const end = s.indexOf(']', close + 2);
      if (end >= 0 && end - close <= maxLabelChars + 2) {
        const label = end === close + 2 ? s.slice(textStart, close) : s.slice(close + 2, end);
        const dest = this.#reference(label);
        return dest === undefined ? null : { dest, end: end + 1 };
      }
    }
    const dest = this.#reference(s.slice(textStart, close));
    return dest === undefined ? null : { dest, end: close + 1 };
  }

  #reference(label: string): string | undefined {
    if (label.length > this.#maxDefinedLabel * 2 + 8) return undefined;
    return this.#definitions.get(normalizeLabel(label));
  }

  /** CommonMark §6.3 link destination and optional title, up to the closing `)`. */
  #inline(start: number): { dest: string; end: number } | null {
    const s = this.#s;
    let i = this.#skipSpaces(start);
    let dest: string;
    if (s[i] === '<') {
      const close = this.#find(i + 1, '>', '<');
      if (close < 0) return null;
      dest = s.slice(i + 1, close);
      i = close + 1;
    } else {
      const begin = i;
      let depth = 0;
      for (; i < s.length && this.#budget-- > 0; i++) {
        const c = s.charCodeAt(i);
        if (c === 0x5c) i++;
        else if (c === 0x28) depth++;
        else if (c === 0x29 && depth-- === 0) break;
        else if (c <= 0x20 || c === 0x7f) break;
      }
      if (depth > 0 || this.#budget <= 0) return null;
      dest = s.slice(begin, i);
    }
    i = this.#skipSpaces(i);
    const quote = s[i];
    if (quote === '"' || quote === "'" || quote === '(') {
      const close = this.#find(i + 1, quote === '(' ? ')' : quote, quote === '(' ? '(' : null);
      if (close < 0) return null;
      i = this.#skipSpaces(close + 1);
    }
    if (s[i] !== ')') return null;
    return { dest: unwrapDestination(dest), end: i + 1 };
  }

  #skipSpaces(i: number): number {
    const s = this.#s;
    while (i < s.length && (s[i] === ' ' || s[i] === '\t' || s[i] === '\n')) i++;
    return i;
  }

  #find(from: number, wanted: string, forbidden: string | null): number {
    const s = this.#s;
    for (let i = from; i < s.length && this.#budget-- > 0; i++) {
      const c = s[i]!;
      if (c === '\\') i++;
      else if (c === wanted) return i;
      else if (c === forbidden || (wanted === '>' && c === '\n')) return -1;
    }
    return -1;
  }
}

const angle = /<(?:[A-Za-z][A-Za-z0-9+.-]{1,31}:[^<>\s]*|\/?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?\/?)>/y;

/**
 * Autolinks, raw HTML tags and comments are opaque: brackets inside them are not link syntax.
 * `commentEnds` finds `-->` in `s`; one per block, so that a block of `<!--` never closed reads the
 * rest of the block once, not once per opening.
 */
export function skipAngle(s: string, i: number, commentEnds: NextMatch): number {
  if (s.startsWith('<!--', i)) {
    const end = commentEnds.from(i + 4);
    return end < 0 ? i + 1 : end + 3;
  }
  angle.lastIndex = i;
  const m = angle.exec(s);
  return m === null ? i + 1 : i + m[0].length;
}

/**
 * Backtick runs by length; a run opens a code span only when a later run of
 * the same length closes it (CommonMark §6.1), otherwise it is literal text.
 */
export class CodeSpanFinder {
  readonly #runs = new Map<number, number[]>();
  readonly #cursor = new Map<number, number>();
  readonly #s: string;

  constructor(s: string) {
    this.#s = s;
    for (let i = 0; i < s.length; ) {
      if (s[i] === '\\' && s[i + 1] === '`') {
        i += 2;
        continue;
      }
      if (s[i] !== '`') {
        i++;
        continue;
      }
      const length = this.#runLength(i);
      const list = this.#runs.get(length) ?? [];
      list.push(i);
      this.#runs.set(length, list);
      i += length;
    }
  }

  /** The index after the code span opening at `i`, or after the literal run. */
  skip(i: number): number {
    const length = this.#runLength(i);
    const list = this.#runs.get(length) ?? [];
    let cursor = this.#cursor.get(length) ?? 0;
    while (cursor < list.length && list[cursor]! <= i) cursor++;
    this.#cursor.set(length, cursor);
    const close = list[cursor];
    if (close === undefined) return i + length;
    this.#cursor.set(length, cursor + 1);
    return close + length;
  }

  #runLength(i: number): number {
    let j = i;
    while (this.#s[j] === '`') j++;
    return j - i;
  }
}
