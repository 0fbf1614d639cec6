/**
 * Row snippets (Mark SPEC §6.4): the line of section text with the most term
 * substring hits, the first line winning ties; over 240 bytes it is cut to 237 bytes
 * on a rune boundary and `...` is appended.
 */
import type { QueryTerm } from './query-terms.ts';
import { utf8Length } from './tokenize.ts';

export const maxSnippetBytes = 240;
const ellipsis = '...';

/** Picks the best line of `lines`; '' when there are none. */
export function bestLine(lines: readonly string[], terms: readonly QueryTerm[]): string {
  let best = '';
  let bestHits = -1;
  for (const line of lines) {
    if (line === '') continue;
    const hits = termHits(line.toLowerCase(), terms);
    if (hits > bestHits) {
      best = line;
      bestHits = hits;
    }
  }
  return best;
}

/** Distinct terms whose stem occurs in the lowercase line. */
function termHits(lower: string, terms: readonly QueryTerm[]): number {
  let hits = 0;
  for (const term of terms) if (lower.includes(term.stem)) hits++;
  return hits;
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

export function snippetFor(lines: readonly string[], terms: readonly QueryTerm[]): string {
  return cutSnippet(bestLine(lines, terms));
}
