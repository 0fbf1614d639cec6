import { compareBytes } from '../../protocol/yaml-map.ts';
import { mergeQueryStats, type NearestTitleEntry, type QueryStats } from '../../search/index.ts';
import { bestRowPerDocument, mergeWorldRows, type Ranking, type WorldRow } from './merge-rows.ts';
import { boundedMap } from '../../concurrency/pool.ts';
import { worldFanOut } from '../fan-out.ts';
import { phaseOne, phaseTwo, type LookupFn, type PhaseRequest, type WorldAnswer } from './world-phases.ts';

export type SearchWorldsRequest = PhaseRequest & {
  worlds: readonly string[];
  /** Rows in the merged answer. */
  limit: number;
  /** Rows asked of each world (default: `limit`). */
  perWorldLimit?: number;
  /** Keep only the best row of each document. */
  onePerDocument?: boolean;
  /** Rows whose document path this returns true for are left out (the tools leave out generated documents). */
  skipPath?: ((path: string) => boolean) | undefined;
};

export type WorldFailure = { world: string; error: unknown };

export type SearchOutcome = {
  rows: WorldRow[];
  ranking: Ranking;
  /** Worlds that answered, and those that could not, by name. */
  succeeded: string[];
  failures: WorldFailure[];
  /** Worlds that required every term although `any` was asked (servers without the relaxed mode). */
  strictWorlds: string[];
  /** Worlds that answered from their catalog (no body search). */
  catalogWorlds: string[];
  /** Only when no world found a row: the nearest titles over all worlds, best first. */
  nearest: (NearestTitleEntry & { world: string })[];
  languageHints: string[];
};

/**
 * Full-text search over several worlds with one ranking (the two phases are in
 * world-phases.ts). The statistics of every world that returned them are summed
 * (documents are disjoint across worlds, so the sum is the union's exact df and
 * totals) and each world scores with the sum: a rare word is rare everywhere,
 * not only in the world that happens to hold it. One world failing, in either
 * phase, is reported beside the others' rows, never instead of them.
 */
export async function searchWorlds(lookup: LookupFn, request: SearchWorldsRequest): Promise<SearchOutcome> {
  const perWorld: PhaseRequest = { ...request, limit: request.perWorldLimit ?? request.limit };
  const failures: WorldFailure[] = [];
  const answers = new Map<string, WorldAnswer>();
  const stats = new Map<string, QueryStats>();
  const first = await boundedMap(request.worlds, worldFanOut, (world) => phaseOne(lookup, world, perWorld));
  first.forEach((result, i) => {
    const world = request.worlds[i]!;
    if (!result.ok) failures.push({ world, error: result.error });
    else if (result.value.kind === 'stats') stats.set(world, result.value.stats);
    else answers.set(world, result.value.answer);
  });
  const global = mergeQueryStats([...stats.values()]);
  const scoring = [...stats.keys()];
  const second = await boundedMap(scoring, worldFanOut, (world) => phaseTwo(lookup, world, perWorld, global));
  second.forEach((result, i) => {
    const world = scoring[i]!;
    if (result.ok) answers.set(world, result.value);
    else failures.push({ world, error: result.error });
  });
  return outcomeOf(request, answers, failures);
}

function outcomeOf(
  request: SearchWorldsRequest,
  answers: Map<string, WorldAnswer>,
  failures: WorldFailure[],
): SearchOutcome {
  const scored: WorldRow[] = [];
  const unscored = new Map<string, WorldRow[]>();
  for (const [world, answer] of answers) {
    const rows = answer.rows
      .map((row, i) => (answer.scores ? { ...row, world, score: answer.scores[i]! } : { ...row, world }))
      .filter((row) => request.skipPath?.(row.path) !== true);
    if (answer.scores) scored.push(...rows);
    else unscored.set(world, rows);
  }
  const merged = mergeWorldRows(scored, unscored);
  const rows = (request.onePerDocument ? bestRowPerDocument(merged.rows) : merged.rows).slice(0, request.limit);
  const names = [...answers.keys()].sort(compareBytes);
  const strictWorlds = request.terms === 'any' ? names.filter((w) => answers.get(w)!.matched === 'all') : [];
  return {
    rows,
    ranking: merged.ranking,
    succeeded: names,
    failures: failures.sort((a, b) => compareBytes(a.world, b.world)),
    strictWorlds,
    catalogWorlds: names.filter((w) => answers.get(w)!.matched === 'catalog'),
    nearest: rows.length > 0 ? [] : nearestOver(answers, request.nearest ?? 0),
    languageHints: [...new Set(names.flatMap((w) => answers.get(w)!.languageHint ?? []))],
  };
}

/** Similarity is computed the same way in every world (edit distance over title words), so it merges as is. */
function nearestOver(answers: Map<string, WorldAnswer>, limit: number): SearchOutcome['nearest'] {
  const all = [...answers].flatMap(([world, answer]) => answer.nearest.map((n) => ({ ...n, world })));
  all.sort((a, b) => b.similarity - a.similarity || compareBytes(a.world, b.world) || compareBytes(a.path, b.path));
  return all.slice(0, limit);
}
