/**
 * A new token for the CLI: a raw secret for the user (shown once) and the
 * `tokens.toml` entry that grants it, holding only its hash, written by the one
 * entry writer (src/protocol/tokens-entry.ts). The entry is checked by parsing
 * it back, so what the user appends always loads.
 */
import { formatRfc3339 } from '../../protocol/time.ts';
import { formatTokenEntry } from '../../protocol/tokens-entry.ts';
import { generateToken, hashToken } from '../../protocol/token.ts';
import { parseTokensFile, TokensFileError } from './tokens-file.ts';

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
  // Minting only: Go's validatePattern (and so parseTokensFile) loads "docs/**", but a request
  // path always starts with "/", so such a grant would match nothing.
  for (const pattern of request.paths)
    if (!pattern.startsWith('/'))
      throw new TokensFileError(`path ${JSON.stringify(pattern)} must start with "/", e.g. /docs/**`, {
        label: request.label,
      });
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
