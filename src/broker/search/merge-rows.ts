import { compareBytes } from '../../protocol/byte-order.ts';
import type { ParsedLookupRow as TableRow } from '../../protocol/render/lookup.ts';

/** A row with the world it came from and, when the world scored it, its shared-scale score. */
export type WorldRow = TableRow & { world: string; score?: number };

/**
 * How a merged list was ordered: `score` when every row carries a score on the
 * shared scale; `rank` when none does (interleaved by each world's own rank);
 * `mixed` when scored rows (as one list) are interleaved with unscored worlds.
 */
export type Ranking = 'score' | 'rank' | 'mixed';

/**
 * One ranking out of several worlds' answers. Scored rows are comparable
 * (phase two gave every world the same statistics), so they sort by score.
 * A world without scores (a Go world) contributes its rows in its own order:
 * its rank r sits beside rank r of the other groups, and the scored rows form
 * one group whose rank is their position in the score order. Ties go to the
 * scored group, then by world name, so the order is deterministic.
 */
export function mergeWorldRows(
  scored: readonly WorldRow[],
  unscored: ReadonlyMap<string, readonly WorldRow[]>,
): { rows: WorldRow[]; ranking: Ranking } {
  const byScore = [...scored].sort(
    (a, b) =>
      (b.score ?? 0) - (a.score ?? 0) ||
      compareBytes(a.world, b.world) ||
      compareBytes(a.path, b.path) ||
      compareBytes(a.anchor, b.anchor),
  );
  const groups = [
    byScore,
    ...[...unscored.entries()]
      .sort(([a], [b]) => compareBytes(a, b))
      .map(([, rows]) => [...rows].sort((a, b) => a.rank - b.rank)),
  ];
  const rows: WorldRow[] = [];
  const longest = Math.max(0, ...groups.map((g) => g.length));
  for (let position = 0; position < longest; position++) {
    for (const group of groups) {
      const row = group[position];
      if (row !== undefined) rows.push(row);
    }
  }
  const hasUnscored = [...unscored.values()].some((r) => r.length > 0);
  const ranking: Ranking = !hasUnscored ? 'score' : byScore.length === 0 ? 'rank' : 'mixed';
  return { rows, ranking };
}

/** Keeps each document's first (best) row: one row per `world` + `path`. */
export function bestRowPerDocument(rows: readonly WorldRow[]): WorldRow[] {
  const seen = new Set<string>();
  return rows.filter((row) => {
    const key = `${row.world}\u0000${row.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
