import { escapeCell, formatFixed2 } from '../../protocol/escape.ts';
import type { Ranking, WorldRow } from './merge-rows.ts';
import { urlCell } from './search-text.ts';

/**
 * mark_lookup_all with `match: body`: the catalog variant's status block and
 * failure table (Go broker `MCP-API.md`, mark_lookup_all), with the world's body-table columns
 * (Mark SPEC §6.7) and `mark://{world}/{path}#anchor` rows. Two extra
 * header lines say how the rows were matched and ordered, because a merged
 * body answer has no single world's contract to lean on.
 */
export function renderBodyLookupAll(input: {
  query: string;
  worldCount: number;
  rows: readonly WorldRow[];
  ranking: Ranking;
  url: (row: WorldRow) => string;
  failures: readonly { world: string; message: string }[];
}): string {
  const { query, worldCount, rows, failures } = input;
  const status = failures.length > 0 ? 'partial' : 'ok';
  let out =
    `status: ${status}\nworlds: ${worldCount}\nsucceeded: ${worldCount - failures.length}\nfailed: ${failures.length}\nmatches: ${rows.length}\n` +
    `match: body\nranking: ${input.ranking}\n` +
    `\n# Lookup matches for "${escapeCell(query)}" across readable worlds\n\n` +
    '| Path | Importance | Title | Tags | Snippet |\n|------|------------|-------|------|---------|\n';
  for (const row of rows) {
    const cells = [
      urlCell(input.url(row)),
      formatFixed2(row.importance),
      escapeCell(row.title),
      escapeCell(row.tags),
      escapeCell(row.snippet),
    ];
    out += `| ${cells.join(' | ')} |\n`;
  }
  if (failures.length > 0) {
    out += '\n## World failures\n\n| World | Error |\n|-------|-------|\n';
    for (const failure of failures) out += `| ${escapeCell(failure.world)} | ${escapeCell(failure.message)} |\n`;
  }
  return out;
}
