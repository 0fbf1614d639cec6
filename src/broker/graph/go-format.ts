/** Go formatting the graph's edge listings depend on: `%q` (shared, from src/protocol). */

import { goQuote } from '../../protocol/go-quote.ts';

export { goQuote };

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
