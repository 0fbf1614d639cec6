import type { MarkResponse } from '../../protocol/response.ts';
import type { Metadata } from '../../protocol/metadata.ts';
import { compareBytes } from '../../protocol/byte-order.ts';
import { bodyText } from './body-text.ts';

/**
 * The reference broker's tool text (Go broker `formatToolResult`):
 * `status: <s>`, then each named key that is present, in the order given, then
 * every other metadata key in byte order, each as `<k>: <v>`; then, when the
 * body is not empty, a blank line and the body. Agents parse this shape, so it
 * is byte-exact.
 */
export function formatToolResult(response: MarkResponse, keys: readonly string[]): string {
  return render(response.status, response.metadata, bodyText(response.body), keys);
}

/**
 * `formatToolResultWith`: the same text with `extra` merged over a copy of the
 * metadata (the response is never changed) and `body` in place of the response body.
 */
export function formatToolResultWith(
  response: MarkResponse,
  body: string,
  extra: Readonly<Metadata>,
  keys: readonly string[],
): string {
  return render(response.status, { ...response.metadata, ...extra }, body, keys);
}

function render(status: string, metadata: Readonly<Metadata>, body: string, keys: readonly string[]): string {
  let out = `status: ${status}\n`;
  const shown = new Set<string>();
  for (const key of keys) {
    const value = metadata[key];
    if (value === undefined || shown.has(key)) continue;
    out += `${key}: ${value}\n`;
    shown.add(key);
  }
  const remaining = Object.keys(metadata)
    .filter((key) => !shown.has(key))
    .sort(compareBytes);
  for (const key of remaining) out += `${key}: ${metadata[key]}\n`;
  if (body !== '') out += `\n${body}`;
  return out;
}
