import { escapeCell } from '../../../protocol/escape.ts';
import { isEscapedAt, splitTableRow, unescapeCell } from '../../../protocol/table-cells.ts';
import { qualifiedWorldUrl } from '../go-format.ts';

/**
 * A world's LOOKUP table (catalog or body mode) as mark_lookup shows it: each
 * row's bare path becomes the `mark://{world}/{path}` URL the other tools take
 * (a body row keeps its `#anchor`), and rows for broker-generated documents are
 * dropped when `drop` says so, as are rows past the first `keep` that remain
 * (the broker asks the world for more rows than it shows: args.ts `rowsToAsk`).
 * Lines outside the table pass unchanged.
 * With `qualify` false the paths stay bare, as the reference broker writes
 * them (web apps parse the table and expect paths; see tools/lookup.ts).
 * Returns the body and how many rows it shows, so `matches` stays true.
 */
export function qualifyLookupBody(
  body: string,
  world: string,
  options: { drop: (path: string) => boolean; keep: number; qualify: boolean },
): { body: string; rows: number } {
  const { drop, keep, qualify } = options;
  const lines = body.split('\n');
  let inTable = false;
  let rows = 0;
  const out: string[] = [];
  for (const line of lines) {
    const cells = splitTableRow(line);
    if (cells === null) {
      inTable = false;
      out.push(line);
      continue;
    }
    if (cells[0]?.toLowerCase() === 'path') {
      inTable = true;
      out.push(line);
      continue;
    }
    const pathCell = cells[0] ?? '';
    if (!inTable || /^:?-{3,}:?$/.test(pathCell) || !pathCell.startsWith('/')) {
      out.push(line);
      continue;
    }
    const { path, anchor } = splitPathCell(pathCell);
    if (drop(path) || rows >= keep) continue;
    rows += 1;
    if (!qualify) {
      out.push(line);
      continue;
    }
    const url = escapeCell(qualifiedWorldUrl(world, path)) + (anchor === '' ? '' : `#${anchor}`);
    out.push(`| ${[url, ...cells.slice(1)].join(' | ')} |`);
  }
  return { body: out.join('\n'), rows };
}

/** `escaped-path#anchor` → the unescaped path and the raw anchor (protocol/render/lookup.ts writes it so). */
function splitPathCell(cell: string): { path: string; anchor: string } {
  for (let i = 0; i < cell.length; i++) {
    if (cell[i] === '#' && !isEscapedAt(cell, i))
      return { path: unescapeCell(cell.slice(0, i)), anchor: cell.slice(i + 1) };
  }
  return { path: unescapeCell(cell), anchor: '' };
}
