import type { MarkResponse } from '../../protocol/response.ts';
import { isEscapedAt, splitTableRow, unescapeCell } from '../../protocol/table-cells.ts';
import { errorWithCode } from '../../errors/coded-error.ts';

/**
 * A world's LOOKUP table read back into rows (Mark reference §2.7 rendering):
 * the 5-column body table (`| Path | Importance | Title | Tags | Snippet |`,
 * paths with an unescaped `#anchor` suffix) or, from a world that answered in
 * catalog mode, the 4-column table with an empty snippet. Strict like
 * mark_lookup_all's reader: a world that answers anything else has failed,
 * rather than contributing half-read rows.
 */
export type TableRow = {
  path: string;
  /** '' for a bare-path row. */
  anchor: string;
  importance: number;
  title: string;
  tags: string;
  snippet: string;
  /** 0-based position in the world's own answer. */
  rank: number;
};

export class LookupAnswerError extends errorWithCode('ERR_MALFORMED_LOOKUP') {}

const columns = {
  body: ['path', 'importance', 'title', 'tags', 'snippet'],
  catalog: ['path', 'importance', 'title', 'tags'],
} as const;

export function parseLookupRows(response: MarkResponse): TableRow[] {
  const lines = new TextDecoder().decode(response.body).replaceAll('\r\n', '\n').split('\n');
  const headerAt = lines.findIndex((line) => headerWidth(splitTableRow(line)) > 0);
  if (headerAt < 0) throw new LookupAnswerError('malformed LOOKUP response: result table missing');
  const width = headerWidth(splitTableRow(lines[headerAt]!));
  const rows: TableRow[] = [];
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
  const declared = response.metadata.matches;
  if (declared === undefined || !/^\d+$/.test(declared) || Number(declared) !== rows.length) {
    throw new LookupAnswerError('malformed LOOKUP response: matches metadata does not match table');
  }
  return rows;
}

function rowFrom(cells: string[], rank: number): TableRow {
  const [pathCell = '', importanceCell = '', title = '', tags = '', snippet = ''] = cells;
  const importance = /^\d+(\.\d+)?$/.test(importanceCell) ? Number(importanceCell) : NaN;
  if (!(importance >= 0 && importance <= 1))
    throw new LookupAnswerError(`malformed LOOKUP response: invalid importance "${importanceCell}"`);
  const { path, anchor } = splitAnchor(pathCell);
  if (!path.startsWith('/')) throw new LookupAnswerError(`malformed LOOKUP response: invalid path "${path}"`);
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

/** The renderer appends `#anchor` unescaped after the escaped path; a `#` inside the path is escaped. */
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
