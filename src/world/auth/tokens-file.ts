/**
 * `tokens.toml` (Go `server/internal/auth/auth.go` `LoadTokens`): labelled tables
 *
 *   [tokens.<label>]
 *   hash = "sha256-<64 hex>"          required; unique across labels
 *   paths = ["/docs/**"]              globs, validated here
 *   operations = ["publish", "read"]  others are allowed and ignored
 *   expires = "2026-12-31T23:59:59Z"  optional RFC 3339
 *
 * Every problem is a load error naming the label. Unknown keys are ignored, as
 * the Go decoder ignores them. An empty (or absent) `[tokens]` table is valid.
 */
import { parse, TomlError } from 'smol-toml';
import { PatternError, validatePattern } from './path-pattern.ts';
import { parseRfc3339 } from '../../protocol/time.ts';
import { CodedError } from '../../errors/coded-error.ts';

export type TokenEntry = {
  label: string;
  /** `sha256-<hex>` of the raw token, as written in the file. */
  hash: string;
  /** The 32 bytes behind `hash`, compared in constant time. */
  digest: Buffer;
  paths: readonly string[];
  operations: readonly string[];
  expiresAt: Date | null;
};

export class TokensFileError extends CodedError<'ERR_TOKENS_FILE'> {
  /** The offending token's label, when the problem is in one entry. */
  readonly label: string | undefined;
  constructor(message: string, options?: { label?: string; cause?: unknown }) {
    super('ERR_TOKENS_FILE', message, options);
    this.label = options?.label;
  }
}

const tokenHashPattern = /^sha256-[0-9a-f]{64}$/;

/** Parse the file's text; `source` (usually the path) names it in errors. */
export function parseTokensFile(text: string, source: string): TokenEntry[] {
  let document: Record<string, unknown>;
  try {
    document = parse(text) as Record<string, unknown>;
  } catch (err) {
    const detail = err instanceof TomlError ? err.message.split('\n')[0] : String(err);
    throw new TokensFileError(`load tokens file ${JSON.stringify(source)}: ${detail}`, { cause: err });
  }
  const tokens = document.tokens ?? {};
  if (!isTable(tokens))
    throw new TokensFileError(`load tokens file ${JSON.stringify(source)}: [tokens] must be a table`);
  const entries: TokenEntry[] = [];
  const labelByHash = new Map<string, string>();
  for (const [label, raw] of Object.entries(tokens)) {
    const entry = parseEntry(label, raw);
    const existing = labelByHash.get(entry.hash);
    if (existing !== undefined) {
      throw new TokensFileError(`duplicate hash for labels ${JSON.stringify(existing)} and ${JSON.stringify(label)}`, {
        label,
      });
    }
    labelByHash.set(entry.hash, label);
    entries.push(entry);
  }
  return entries;
}

function parseEntry(label: string, raw: unknown): TokenEntry {
  const fail = (problem: string, cause?: unknown): TokensFileError =>
    new TokensFileError(`token ${JSON.stringify(label)} ${problem}`, { label, cause });
  if (!isTable(raw)) throw fail('must be a table ([tokens.<label>])');
  const hash = optionalString(raw.hash, () => fail('has a hash that is not a string')) ?? '';
  if (hash === '') throw fail('has empty hash');
  if (!tokenHashPattern.test(hash))
    throw fail(`has invalid hash ${JSON.stringify(hash)} (want sha256-<64 lowercase hex>)`);
  const paths = stringList(raw.paths, () => fail('has paths that are not a list of strings'));
  for (const pattern of paths) {
    try {
      validatePattern(pattern);
    } catch (err) {
      if (err instanceof PatternError)
        throw fail(`has invalid path pattern ${JSON.stringify(pattern)}: ${err.message}`, err);
      throw err;
    }
  }
  const operations = stringList(raw.operations, () => fail('has operations that are not a list of strings'));
  const expires = optionalString(raw.expires, () => fail('has expires that is not an RFC 3339 string'));
  const expiresAt = expires === undefined || expires === '' ? null : parseRfc3339(expires);
  if (expires !== undefined && expires !== '' && expiresAt === null)
    throw fail(`has invalid expires ${JSON.stringify(expires)}: not RFC 3339`);
  return { label, hash, digest: Buffer.from(hash.slice('sha256-'.length), 'hex'), paths, operations, expiresAt };
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

function optionalString(value: unknown, fail: () => Error): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw fail();
  return value;
}

function stringList(value: unknown, fail: () => Error): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((item) => typeof item === 'string')) throw fail();
  return [...value];
}
