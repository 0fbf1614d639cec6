/**
 * The tokens.toml entry text, byte for byte as the Go `token.FormatEntry`
 * writes it (reference §2.8), so a broker-appended file reads the same whether
 * the Go or the TypeScript broker wrote it:
 *
 *   "\n[tokens.<label>]\nhash = \"<hash>\"\npaths = [\"/**\"]\noperations = [\"publish\"]\n"
 *
 * The label is bare when it is a TOML bare key (`[A-Za-z0-9_-]+`), else
 * Go-quoted; list items are Go-quoted and joined with `", "`. (Written here
 * rather than shared with the world's minting code: the broker must not import
 * the world.)
 */
import { goQuote } from '../../../protocol/go-quote.ts';

export type TokenEntryFields = {
  hash: string;
  paths: readonly string[];
  operations: readonly string[];
  /** RFC 3339; the broker's own tokens never expire. */
  expires?: string;
};

export function formatTokenEntry(label: string, entry: TokenEntryFields): string {
  const key = /^[A-Za-z0-9_-]+$/.test(label) ? label : goQuote(label);
  const list = (items: readonly string[]) => items.map(goQuote).join(', ');
  let text = `\n[tokens.${key}]\nhash = ${goQuote(entry.hash)}\npaths = [${list(entry.paths)}]\noperations = [${list(entry.operations)}]\n`;
  if (entry.expires !== undefined && entry.expires !== '') text += `expires = ${goQuote(entry.expires)}\n`;
  return text;
}
