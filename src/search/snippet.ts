/**
 * Row snippets (Go `bodymatch.go`): the line of section text with the most term
 * substring hits, the first line winning ties; over 240 bytes it is cut to 237 bytes
 * on a rune boundary and `...` is appended.
 *
 * Section lines are read through their runs, numbered at indexing (line-words.ts):
 * a query tests each distinct run once, mostly by comparing two character sets,
 * instead of scanning every row's section once per stem (bench/search-quic.ts).
 */
import { isRunText, signatureOf, WordTable } from './line-words.ts';
import type { LineWords } from './line-words.ts';
import type { QueryTerm } from './query-terms.ts';
import { utf8Length } from './tokenize.ts';

export const maxSnippetBytes = 240;
const ellipsis = '...';

/** A query's stems, prepared once for all of its rows in one index's WordTable. */
export class SnippetTerms {
  readonly words: WordTable;
  readonly stems: string[];
  readonly signatures: Int32Array;
  /** Bit i set: stem i holds a character no run holds, so lines are scanned for it. */
  readonly scanned: number;
  #generation: number;

  constructor(words: WordTable, terms: readonly QueryTerm[]) {
    if (terms.length > 32) throw new RangeError('at most 32 terms per snippet');
    this.words = words;
    this.stems = terms.map((t) => t.stem);
    this.signatures = Int32Array.from(this.stems, signatureOf);
    let scanned = 0;
    this.stems.forEach((stem, i) => {
      if (!isRunText(stem)) scanned |= 1 << i;
    });
    this.scanned = scanned;
    this.#generation = words.newQuery();
  }

  /**
   * The run masks of `lines` (WordTable.settle) under these terms. The table keeps
   * masks for one query at a time; a query run in slices (slices.ts) that resumes
   * after another began takes the table back with a new generation (WordTable.resume), so it settles
   * again the runs it had settled: a run's mask depends only on the run and the
   * stems, so its rows' snippets are the same (test/search/sliced-queries.test.ts).
   */
  masksFor(lines: LineWords): Int32Array {
    this.#generation = this.words.resume(this.#generation);
    return this.words.settle(lines, this.#generation, this.stems, this.signatures, this.scanned);
  }

  /** Hits of the stems that are not runs, by substring test of one lowercase line. */
  scannedHits(line: string, all = false): number {
    let mask = 0;
    this.stems.forEach((stem, i) => {
      if ((all || (this.scanned & (1 << i)) !== 0) && line.includes(stem)) mask |= 1 << i;
    });
    return mask;
  }
}

/** One text of a row: with its numbered lines, or without (then every line is scanned). */
export interface RowText {
  text: string;
  lines?: LineWords;
}

interface LineChoice {
  line: number;
  hits: number;
}

/** The line of one text with the most hits and their count; hits 0 when none. */
function bestHitLine({ text, lines: form }: RowText, terms: SnippetTerms): LineChoice {
  let best: LineChoice = { line: -1, hits: 0 };
  const consider = (line: number, mask: number): boolean => {
    const hits = bitCount(mask);
    if (hits > best.hits) best = { line, hits };
    return hits === terms.stems.length;
  };
  if (form === undefined) {
    // Lowercasing keeps every '\n' and is context-free across one, so line i of
    // the lowercase text is line i of `text`, lowercased.
    const lower = text.toLowerCase().split('\n');
    for (let line = 0; line < lower.length; line++)
      if (consider(line, terms.scannedHits(lower[line] ?? '', true))) break;
    return best;
  }
  const masks = terms.masksFor(form);
  const { table, wordCount, lineCount } = form;
  const lower = terms.scanned === 0 ? undefined : text.toLowerCase().split('\n');
  const entriesAt = wordCount + lineCount;
  let from = entriesAt;
  for (let line = 0; line < lineCount; line++) {
    const to = entriesAt + (table[wordCount + line] as number);
    let mask = 0;
    for (let e = from; e < to; e++) mask |= masks[table[e] as number] as number;
    from = to;
    if (lower !== undefined) mask |= terms.scannedHits(lower[line] ?? '');
    if (consider(line, mask)) break;
  }
  return best;
}

function bitCount(mask: number): number {
  let n = mask - ((mask >>> 1) & 0x55555555);
  n = (n & 0x33333333) + ((n >>> 2) & 0x33333333);
  return (((n + (n >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24;
}

/**
 * The best line of texts read one after the other, as if joined by '\n': most
 * distinct term stems found in the lowercase line, the first line winning ties;
 * with no hit, the first non-empty line; '' when every line is empty.
 */
export function bestLineOf(texts: readonly RowText[], terms: SnippetTerms): string {
  let best: { text: string; line: number; hits: number } | undefined;
  for (const row of texts) {
    const choice = bestHitLine(row, terms);
    if (choice.hits > (best?.hits ?? 0)) best = { text: row.text, ...choice };
  }
  if (best !== undefined) return lineAt(best.text, best.line);
  for (const { text } of texts) {
    const start = firstNonEmptyLine(text);
    if (start >= 0) return lineFrom(text, start);
  }
  return '';
}

/** The best line of one text (lines split on '\n'); see bestLineOf. */
export function bestLine(text: string, terms: readonly QueryTerm[]): string {
  const words = new WordTable();
  return bestLineOf([{ text, lines: words.add(text) }], new SnippetTerms(words, terms));
}

function firstNonEmptyLine(text: string): number {
  let at = 0;
  while (at < text.length && text.charCodeAt(at) === 0x0a) at++;
  return at < text.length ? at : -1;
}

/** Line `index` of `text` (0-based, split on '\n'). */
function lineAt(text: string, index: number): string {
  let start = 0;
  for (let i = 0; i < index; i++) start = text.indexOf('\n', start) + 1;
  return lineFrom(text, start);
}

function lineFrom(text: string, start: number): string {
  const end = text.indexOf('\n', start);
  return text.slice(start, end < 0 ? text.length : end);
}

/** Cuts to 237 bytes on a rune boundary plus `...` when over 240 bytes. */
export function cutSnippet(line: string): string {
  if (utf8Length(line) <= maxSnippetBytes) return line;
  const budget = maxSnippetBytes - ellipsis.length;
  let bytes = 0;
  let end = 0;
  for (const rune of line) {
    const size = utf8Length(rune);
    if (bytes + size > budget) break;
    bytes += size;
    end += rune.length;
  }
  return line.slice(0, end) + ellipsis;
}

/**
 * Work units of a snippet over `texts` (slices.ts): the run-table entries its
 * lines are read through, or for a text without them its length (scanned per stem).
 */
export function snippetWork(texts: readonly RowText[]): number {
  let units = 0;
  for (const { text, lines } of texts) units += lines === undefined ? text.length : lines.table.length;
  return units;
}

/** The row snippet of texts read as one (see bestLineOf). */
export function snippetFor(texts: readonly RowText[], terms: SnippetTerms): string {
  return cutSnippet(bestLineOf(texts, terms));
}
