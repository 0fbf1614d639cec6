import { errorWithCode } from '../../errors/coded-error.ts';
import { escapeCell, escapeMarkdown, formatFixed2 } from '../escape.ts';
import { goQuote } from '../go-quote.ts';
import { isEscapedAt, splitTableRow, unescapeCell } from '../table-cells.ts';

export type LookupRow = {
  path: string;
  /** Section anchor for body matches; appended unescaped after `#`. */
  anchor?: string;
  importance: number;
  title: string;
  tags: readonly string[];
  /** Present in body mode only. */
  snippet?: string;
};

export type LookupMode = 'catalog' | 'body';

const headers: Record<LookupMode, string> = {
  catalog: '| Path | Importance | Title | Tags |\n|------|------------|-------|------|\n',
  body: '| Path | Importance | Title | Tags | Snippet |\n|------|------------|-------|------|---------|\n',
};

/** The LOOKUP body: a heading naming query and scope, then one table row per match. */
export function renderLookup(query: string, scope: string, mode: LookupMode, rows: readonly LookupRow[]): string {
  let body = `\n# Lookup matches for "${escapeMarkdown(query)}" in ${escapeMarkdown(scope)}\n\n${headers[mode]}`;
  for (const row of rows) {
    const anchor = row.anchor ? `#${row.anchor}` : '';
    const cells = [
      escapeCell(row.path) + anchor,
      formatFixed2(row.importance),
      escapeCell(row.title),
      escapeCell(row.tags.join(', ')),
    ];
    if (mode === 'body') cells.push(escapeCell(row.snippet ?? ''));
    body += `| ${cells.join(' | ')} |\n`;
  }
  return body;
}

/** A LOOKUP row read back; `anchor` is '' for a bare-path row, `snippet` '' in catalog mode. */
export type ParsedLookupRow = {
  path: string;
  anchor: string;
  importance: number;
  title: string;
  /** The tags cell as written (`a, b`). */
  tags: string;
  snippet: string;
  /** 0-based position in the world's own answer. */
  rank: number;
};

export class LookupAnswerError extends errorWithCode('ERR_MALFORMED_LOOKUP') {}

const columns: Record<LookupMode, readonly string[]> = {
  body: ['path', 'importance', 'title', 'tags', 'snippet'],
  catalog: ['path', 'importance', 'title', 'tags'],
};

/**
 * A LOOKUP answer (`renderLookup`'s table plus its `matches` metadata) read
 * back into rows, strictly: the catalog or body header must be there, every
 * row as wide as it, importance written as `renderLookup` writes it (a
 * decimal in [0, 1], so `1.50` or `+1e-1` is refused), paths absolute, and
 * `matches` equal to the rows. A world that answers anything else has failed,
 * rather than contributing half-read rows.
 */
export function parseLookup(body: string, metadata: Readonly<Record<string, string>>): ParsedLookupRow[] {
  const lines = body.replaceAll('\r\n', '\n').split('\n');
  const headerAt = lines.findIndex((line) => headerWidth(splitTableRow(line)) > 0);
  if (headerAt < 0) throw new LookupAnswerError('malformed LOOKUP response: result table missing');
  const width = headerWidth(splitTableRow(lines[headerAt]!));
  const rows: ParsedLookupRow[] = [];
  for (const line of lines.slice(headerAt + 1)) {
    if (line.trim() === '') {
      if (rows.length > 0) break;
      continue;
    }
    const cells = splitTableRow(line);
    if (cells === null) break;
    if (cells.every((cell) => /^:?-{3,}:?$/.test(cell))) continue;
    if (cells.length !== width)
      throw new LookupAnswerError(`malformed LOOKUP response: row has ${cells.length} columns`);
    rows.push(rowFrom(cells, rows.length));
  }
  const declared = metadata.matches;
  if (declared === undefined || !/^\d+$/.test(declared) || Number(declared) !== rows.length) {
    throw new LookupAnswerError('malformed LOOKUP response: matches metadata does not match table');
  }
  return rows;
}

function rowFrom(cells: string[], rank: number): ParsedLookupRow {
  const [pathCell = '', importanceCell = '', title = '', tags = '', snippet = ''] = cells;
  const importance = /^\d+(\.\d+)?$/.test(importanceCell) ? Number(importanceCell) : Number.NaN;
  if (!(importance >= 0 && importance <= 1))
    throw new LookupAnswerError(`malformed LOOKUP response: invalid importance ${goQuote(importanceCell)}`);
  const { path, anchor } = splitAnchor(pathCell);
  if (!path.startsWith('/')) throw new LookupAnswerError(`malformed LOOKUP response: invalid path ${goQuote(path)}`);
  return {
    path,
    anchor,
    importance,
    title: unescapeCell(title),
    tags: unescapeCell(tags),
    snippet: unescapeCell(snippet),
    rank,
  };
}

/** `renderLookup` appends `#anchor` unescaped after the escaped path; a `#` inside the path is escaped. */
function splitAnchor(cell: string): { path: string; anchor: string } {
  for (let i = cell.length - 1; i >= 0; i--) {
    if (cell[i] === '#' && !isEscapedAt(cell, i))
      return { path: unescapeCell(cell.slice(0, i)), anchor: cell.slice(i + 1) };
  }
  return { path: unescapeCell(cell), anchor: '' };
}

function headerWidth(cells: string[] | null): number {
  if (cells === null) return 0;
  for (const names of [columns.body, columns.catalog]) {
    if (cells.length === names.length && cells.every((cell, i) => cell.toLowerCase() === names[i])) return names.length;
  }
  return 0;
}
