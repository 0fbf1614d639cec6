import type { MarkResponse } from '../../../protocol/response.ts';
import { bodyText } from '../body-text.ts';
import { goQuote } from '../go-format.ts';
import { splitTableRow, unescapeCell } from '../../../protocol/table-cells.ts';
import { errorWithCode } from '../../../errors/coded-error.ts';

/**
 * A world's catalog LOOKUP table read back into rows (Mark reference §2.7),
 * strictly: the `| Path | Importance | Title | Tags |` header must be there,
 * importance must be a number in [0, 1], paths absolute, and the `matches`
 * count must equal the rows. A world that answers anything else has failed
 * for mark_lookup_all, rather than contributing half-read rows.
 */
export type LookupTableRow = { path: string; importance: number; title: string; tags: string; rank: number };

export class LookupTableError extends errorWithCode('ERR_MALFORMED_LOOKUP') {}

export function parseLookupTable(response: MarkResponse): LookupTableRow[] {
  const lines = bodyText(response.body).replaceAll('\r\n', '\n').split('\n');
  const header = lines.findIndex((line) => isHeader(splitTableRow(line)));
  if (header < 0) throw new LookupTableError('malformed LOOKUP response: result table missing');
  const rows: LookupTableRow[] = [];
  for (const line of lines.slice(header + 1)) {
    if (line.trim() === '') {
      if (rows.length > 0) break;
      continue;
    }
    const cells = splitTableRow(line);
    if (cells === null) break;
    if (isSeparator(cells)) continue;
    rows.push(rowFrom(cells, rows.length));
  }
  const declared = response.metadata.matches;
  if (declared === undefined || !/^[+-]?\d+$/.test(declared) || Number(declared) !== rows.length) {
    throw new LookupTableError('malformed LOOKUP response: matches metadata does not match table');
  }
  return rows;
}

function rowFrom(cells: string[], rank: number): LookupTableRow {
  if (cells.length !== 4) throw new LookupTableError(`malformed LOOKUP response: row has ${cells.length} columns`);
  const importanceText = unescapeCell(cells[1]!);
  const importance = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(importanceText) ? Number(importanceText) : NaN;
  if (!Number.isFinite(importance) || importance < 0 || importance > 1) {
    throw new LookupTableError(`malformed LOOKUP response: invalid importance ${goQuote(cells[1]!)}`);
  }
  const path = unescapeCell(cells[0]!);
  if (!path.startsWith('/')) throw new LookupTableError(`malformed LOOKUP response: invalid path ${goQuote(path)}`);
  return { path, importance, title: unescapeCell(cells[2]!), tags: unescapeCell(cells[3]!), rank };
}

function isHeader(cells: string[] | null): boolean {
  const names = ['path', 'importance', 'title', 'tags'];
  return cells !== null && cells.length === 4 && cells.every((cell, i) => cell.toLowerCase() === names[i]);
}

function isSeparator(cells: string[]): boolean {
  return cells.length === 4 && cells.every((cell) => /^:?-{3,}:?$/.test(cell.trim()));
}
