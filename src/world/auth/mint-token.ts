/**
 * A new token for the CLI: a raw secret for the user (shown once) and the
 * `tokens.toml` entry that grants it, holding only its hash, written by the one
 * entry writer (src/protocol/tokens-entry.ts). The entry is checked by parsing
 * it back, so what the user appends always loads.
 */
import { formatRfc3339 } from '../../protocol/time.ts';
import { formatTokenEntry } from '../../protocol/tokens-entry.ts';
import { generateToken, hashToken } from '../../protocol/token.ts';
import { parseTokensFile } from './tokens-file.ts';

export type MintRequest = {
  label: string;
  paths: readonly string[];
  operations: readonly string[];
  /** RFC 3339 text or a Date (written as UTC). */
  expires?: string | Date;
};

export type MintedToken = { rawToken: string; hash: string; tomlEntry: string };

export function mintTokenEntry(request: MintRequest): MintedToken {
  if (request.label === '') throw new RangeError('token label must not be empty');
  const rawToken = generateToken();
  const hash = hashToken(rawToken);
  const expires = request.expires instanceof Date ? formatRfc3339(request.expires) : request.expires;
  // Without the blank line FormatEntry starts with: this text is shown to be pasted, not appended.
  const tomlEntry = formatTokenEntry(request.label, {
    hash,
    paths: request.paths,
    operations: request.operations,
    ...(expires === undefined ? {} : { expires }),
  }).replace(/^\n/, '');
  // Throws TokensFileError for a bad pattern, expiry or label, before anything is written.
  parseTokensFile(tomlEntry, `new token ${request.label}`);
  return { rawToken, hash, tomlEntry };
}
