/**
 * The pure text edit behind the file tokens sink: make a tokens.toml hold one
 * entry, touching nothing else. Appending keeps every existing byte (Go
 * `AppendBytes`); replacing cuts out only the stale entry's table, and falls
 * back to re-encoding the document (what the Go broker always does) only when
 * the entry is not written as a plain `[tokens.<label>]` table.
 */
import { parse, stringify } from 'smol-toml';
import { formatTokenEntry } from '../../../protocol/tokens-entry.ts';
import { writeTokenOperations, type WriteTokenRecord } from './record.ts';
import type { EnsureOutcome } from './sink.ts';
import { errorWithCode } from '../../../errors/coded-error.ts';

export type TokensEdit = { text: string; outcome: EnsureOutcome };

export class TokensTomlError extends errorWithCode('ERR_TOKENS_TOML') {}

export function ensureTokenEntry(text: string, record: WriteTokenRecord): TokensEdit {
  const document = parseTokens(text);
  const existing = tokensOf(document)[record.label];
  const entryText = formatTokenEntry(record.label, {
    hash: record.hash,
    paths: record.paths,
    operations: writeTokenOperations,
  });
  if (existing === undefined) return checked({ text: text + entryText, outcome: 'appended' }, record);
  // The whole entry must match, paths and operations too: the world enforces what the entry says,
  // so an entry with our hash but other paths (widened by hand, or configured wider before) is replaced.
  if (isTable(existing) && canonical(existing) === canonical(tokensOf(parseTokens(entryText))[record.label]))
    return { text, outcome: 'unchanged' };
  const rest = removeTable(text, record.label, document) ?? reencodeWithout(document, record.label);
  return checked({ text: rest + entryText, outcome: 'replaced' }, record);
}

function parseTokens(text: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (cause) {
    throw new TokensTomlError('tokens file is not valid TOML', { cause });
  }
}

function tokensOf(document: Record<string, unknown>): Record<string, unknown> {
  const tokens = document.tokens;
  if (tokens === undefined) return {};
  if (!isTable(tokens)) throw new TokensTomlError('tokens file: [tokens] is not a table');
  return tokens;
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date);
}

/**
 * Cuts the `[tokens.<label>]` table (header through the line before the next
 * table header) and the blank line `FormatEntry` put before it. Null when the
 * cut does not leave exactly the other entries, so the caller re-encodes.
 */
function removeTable(text: string, label: string, before: Record<string, unknown>): string | null {
  const lines = text.split(/(?<=\n)/);
  const header = headerPattern(label);
  const start = lines.findIndex((line) => header.test(line));
  if (start < 0) return null;
  let end = start + 1;
  while (end < lines.length && !/^\s*\[/.test(lines[end]!)) end += 1;
  // Blank lines before the next table belong to it.
  while (end > start + 1 && lines[end - 1]!.trim() === '') end -= 1;
  const from = start > 0 && lines[start - 1]!.trim() === '' ? start - 1 : start;
  const result = [...lines.slice(0, from), ...lines.slice(end)].join('');
  try {
    return canonical(parse(result)) === canonical(without(before, label)) ? result : null;
  } catch {
    return null;
  }
}

function without(document: Record<string, unknown>, label: string): Record<string, unknown> {
  const { [label]: _removed, ...tokens } = tokensOf(document);
  return { ...document, tokens };
}

/** Key-order-independent JSON, for comparing parsed documents (smol-toml's objects are not plain). */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) =>
    isTable(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : item,
  );
}

function headerPattern(label: string): RegExp {
  const escaped = label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(
    `^\\s*\\[\\s*tokens\\s*\\.\\s*(?:${escaped}|"${escaped}"|'${escaped}')\\s*\\]\\s*(?:#.*)?\\r?\\n?$`,
  );
}

function reencodeWithout(document: Record<string, unknown>, label: string): string {
  return stringify(without(document, label));
}

/** The edit must load and hold exactly our entry; anything else is refused rather than written. */
function checked(edit: TokensEdit, record: WriteTokenRecord): TokensEdit {
  const entry = tokensOf(parseTokens(edit.text))[record.label];
  if (!isTable(entry) || entry.hash !== record.hash || canonical(entry.paths) !== canonical(record.paths)) {
    throw new TokensTomlError(
      `tokens file edit for ${JSON.stringify(record.label)} did not produce the expected entry`,
    );
  }
  return edit;
}
