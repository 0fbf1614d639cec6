/**
 * A new token for the CLI: a raw secret for the user (shown once) and the
 * `tokens.toml` entry that grants it, holding only its hash (reference §5.1-5.2).
 * The entry is checked by parsing it back, so what is appended always loads.
 */
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
  const lines = [
    `[tokens.${tomlKey(request.label)}]`,
    `hash = ${tomlString(hash)}`,
    `paths = [${request.paths.map(tomlString).join(', ')}]`,
    `operations = [${request.operations.map(tomlString).join(', ')}]`,
  ];
  if (request.expires !== undefined) {
    const expires =
      request.expires instanceof Date ? request.expires.toISOString().replace(/\.000Z$/, 'Z') : request.expires;
    lines.push(`expires = ${tomlString(expires)}`);
  }
  const tomlEntry = `${lines.join('\n')}\n`;
  // Throws TokensFileError for a bad pattern or expiry, before anything is written.
  parseTokensFile(tomlEntry, `new token ${request.label}`);
  return { rawToken, hash, tomlEntry };
}

function tomlKey(label: string): string {
  return /^[A-Za-z0-9_-]+$/.test(label) ? label : tomlString(label);
}

/** A TOML basic string: quotes, backslashes and control characters escaped. */
function tomlString(text: string): string {
  const escaped = text.replace(/["\\\u0000-\u001f\u007f]/g, (char) => {
    if (char === '"') return '\\"';
    if (char === '\\') return '\\\\';
    return `\\u${(char.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
  });
  return `"${escaped}"`;
}
