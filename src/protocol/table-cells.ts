/**
 * Reading back the tables the renderers write (LOOKUP bodies): a row is
 * `| a | b |` split at unescaped pipes, and a cell is unescaped by removing the
 * backslash `escapeCell` put before each markdown special character.
 */

/** Cells of a `| a | b |` row, split only at unescaped pipes; null for a line that is not a row. */
export function splitTableRow(line: string): string[] | null {
  const row = line.trim();
  if (row.length < 2 || !row.startsWith('|') || !row.endsWith('|') || isEscapedAt(row, row.length - 1)) return null;
  const cells: string[] = [];
  let start = 1;
  for (let i = 1; i < row.length - 1; i++) {
    if (row[i] === '|' && !isEscapedAt(row, i)) {
      cells.push(row.slice(start, i).trim());
      start = i + 1;
    }
  }
  cells.push(row.slice(start, row.length - 1).trim());
  return cells;
}

/** Whether the character at `at` is escaped by an odd run of backslashes before it. */
export function isEscapedAt(text: string, at: number): boolean {
  let backslashes = 0;
  for (let i = at - 1; i >= 0 && text[i] === '\\'; i--) backslashes++;
  return backslashes % 2 === 1;
}

/** Undoes `escapeCell`: drops the backslash before each markdown special character. */
export function unescapeCell(cell: string): string {
  return cell.replace(/\\([\\[\]()*_`~#|])/g, '$1');
}
