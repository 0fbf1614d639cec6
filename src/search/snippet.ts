/**
 * Row snippets (Go `bodymatch.go`): the line of section text with the most term
 * substring hits, the first line winning ties; over 240 bytes it is cut to 237 bytes
 * on a rune boundary and `...` is appended.
 */
import type { QueryTerm } from './query-terms.ts';
import { utf8Length } from './tokenize.ts';

export const maxSnippetBytes = 240;
const ellipsis = '...';

/**
 * `text` lowercased, with every character above U+00FF replaced by U+0001: the
 * same length and line breaks as the lowercase text, and a one-byte string, so
 * scanning it for a Latin-1 stem is a fast native search and it costs one byte
 * per character to keep. A Latin-1 stem (word characters only) matches it exactly
 * where it matches the lowercase text: U+0001 matches no stem character.
 * Computed once per section when it is indexed: lowercasing mixed-script text at
 * query time was a third of a row's cost (bench/search-quic.ts).
 */
export function foldForScan(text: string): string {
  return text.toLowerCase().replace(beyondLatin1, '\u0001');
}

const beyondLatin1 = /[^\u0000-\u00ff]/g;
const beyondLatin1Test = /[^\u0000-\u00ff]/;

/**
 * The best line of `text` (lines split on '\n'): most distinct term stems found in
 * the lowercase line, the first non-empty line winning ties; '' when every line is
 * empty. Each stem is searched over the whole text with native indexOf, going on
 * from the next line after each hit, so a row costs a few scans and work per hit,
 * not lines × terms calls. `fold` is foldForScan(text).
 */
export function bestLine(text: string, terms: readonly QueryTerm[], fold = foldForScan(text)): string {
  // Lowercasing keeps every '\n' and is context-free across one (a final sigma
  // before a newline is final either way), so line i of the lowercase text (and of
  // `fold`) is line i of `text`, lowercased; `fold` has the lowercase offsets.
  let lower: string | undefined;
  // Hits per line, keyed by the line's start offset.
  const hits = new Map<number, number>();
  for (const term of terms) {
    const stem = term.stem;
    let haystack = fold;
    if (beyondLatin1Test.test(stem)) {
      lower ??= text.toLowerCase();
      haystack = lower;
    }
    for (let at = haystack.indexOf(stem); at >= 0; ) {
      const start = haystack.lastIndexOf('\n', at) + 1;
      hits.set(start, (hits.get(start) ?? 0) + 1);
      const end = haystack.indexOf('\n', at);
      if (end < 0) break;
      at = haystack.indexOf(stem, end + 1);
    }
  }
  // A hit is never on an empty line, so the best hit line is non-empty; with no
  // hit at all, the first non-empty line wins.
  let best = -1;
  let bestHits = 0;
  for (const [start, count] of hits)
    if (count > bestHits || (count === bestHits && start < best)) {
      best = start;
      bestHits = count;
    }
  if (best < 0) best = firstNonEmptyLine(fold);
  if (best < 0) return '';
  return lineOf(text, fold, best);
}

function firstNonEmptyLine(text: string): number {
  let at = 0;
  while (at < text.length && text.charCodeAt(at) === 0x0a) at++;
  return at < text.length ? at : -1;
}

/** The line of `text` that starts at `start` in its lowercase form `lower`. */
function lineOf(text: string, lower: string, start: number): string {
  if (lower.length === text.length) {
    // Same length: every offset is the same in both (the usual case).
    const end = text.indexOf('\n', start);
    return text.slice(start, end < 0 ? text.length : end);
  }
  let index = 0;
  for (let at = lower.indexOf('\n'); at >= 0 && at < start; at = lower.indexOf('\n', at + 1)) index++;
  return text.split('\n', index + 1)[index] ?? '';
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

/** The row snippet of `text` (lines split on '\n'), given foldForScan(text). */
export function snippetFor(text: string, fold: string, terms: readonly QueryTerm[]): string {
  return cutSnippet(bestLine(text, terms, fold));
}
