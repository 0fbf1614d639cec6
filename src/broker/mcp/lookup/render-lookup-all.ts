import { escapeCell, formatFixed2 } from '../../../protocol/escape.ts';
import { compareBytes } from '../../../protocol/byte-order.ts';
import { qualifiedWorldUrl } from '../go-format.ts';
import type { ParsedLookupRow } from '../../../protocol/render/lookup.ts';

/**
 * mark_lookup_all's merged answer (Go broker `MCP-API.md`, mark_lookup_all). Rows keep each
 * world's own rank: the protocol exposes no score comparable across worlds, so
 * the merge is rank first, then importance, world and path for a stable order.
 */
export type WorldRow = ParsedLookupRow & { world: string };
export type WorldFailure = { world: string; message: string };

export function mergeRows(rows: WorldRow[], limit: number): WorldRow[] {
  const sorted = [...rows].sort(
    (a, b) =>
      a.rank - b.rank || b.importance - a.importance || compareBytes(a.world, b.world) || compareBytes(a.path, b.path),
  );
  return sorted.slice(0, limit);
}

export function renderLookupAll(
  query: string,
  worldCount: number,
  rows: readonly WorldRow[],
  failures: readonly WorldFailure[],
): string {
  const status = failures.length > 0 ? 'partial' : 'ok';
  let out =
    `status: ${status}\nworlds: ${worldCount}\nsucceeded: ${worldCount - failures.length}\nfailed: ${failures.length}\nmatches: ${rows.length}\n` +
    `\n# Lookup matches for "${escapeCell(query)}" across readable worlds\n\n` +
    '| Path | Importance | Title | Tags |\n|------|------------|-------|------|\n';
  for (const row of rows) {
    out += `| ${escapeCell(qualifiedWorldUrl(row.world, row.path))} | ${formatFixed2(row.importance)} | ${escapeCell(row.title)} | ${escapeCell(row.tags)} |\n`;
  }
  if (failures.length > 0) {
    out += '\n## World failures\n\n| World | Error |\n|-------|-------|\n';
    for (const failure of failures) out += `| ${escapeCell(failure.world)} | ${escapeCell(failure.message)} |\n`;
  }
  return out;
}
