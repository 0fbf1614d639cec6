/**
 * Go formatting the graph tools' texts depend on: `%q` (shared, from
 * src/protocol) and `%-Ns` (left-justified, padded by rune count).
 */

import { goQuote } from '../../protocol/go-quote.ts';

export { goQuote };

/** `%-<width>s`: pads with spaces to `width` runes, never truncates. */
export function goPadEnd(text: string, width: number): string {
  const runes = [...text].length;
  return runes >= width ? text : text + ' '.repeat(width - runes);
}

/**
 * The provenance suffix shared by every edge listing (graph.EdgeAnnotation):
 * ` [rel]` for a typed edge, then ` (<quoted label>, #anchor, xN)` with the
 * parts that are present. Empty for a plain single-occurrence edge.
 */
export function edgeAnnotation(rel: string, label: string, anchor: string, count: number): string {
  const parts: string[] = [];
  if (label !== '') parts.push(goQuote(label));
  if (anchor !== '') parts.push(`#${anchor}`);
  if (count > 1) parts.push(`x${count}`);
  let out = rel === '' ? '' : ` [${rel}]`;
  if (parts.length > 0) out += ` (${parts.join(', ')})`;
  return out;
}
