/**
 * The tokens.toml entry text, byte for byte as the Go `token.FormatEntry`
 * of latebit-io/demarkus writes it, so a file reads the same
 * whether the Go or the TypeScript broker appended to it, and a token minted
 * by the CLI looks like one the broker provisioned:
 *
 *   "\n[tokens.<label>]\nhash = \"<hash>\"\npaths = [\"/**\"]\noperations = [\"publish\"]\n"
 *
 * The label is bare when it is a TOML bare key (`[A-Za-z0-9_-]+`), else
 * Go-quoted; list items are Go-quoted and joined with `", "`. The one writer
 * of entries: the broker's write-token provisioning, the Kubernetes token
 * bootstrap and `demarkus-broker world token` all use it.
 */
import { goQuote } from './go-quote.ts';

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
