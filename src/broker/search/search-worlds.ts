import { compareBytes } from '../../protocol/byte-order.ts';
import { mergeQueryStats, parseQuery, type NearestTitleEntry, type QueryStats } from '../../search/index.ts';
import { bestRowPerDocument, mergeWorldRows, type Ranking, type WorldRow } from './merge-rows.ts';
import { boundedMap } from '../../concurrency/pool.ts';
import { worldFanOut } from '../fan-out.ts';
import {
  phaseChecked,
  phaseOne,
  phaseTwo,
  type LookupFn,
  type PhaseRequest,
  type WorldAnswer,
} from './world-phases.ts';
import { sameQueryStats, type SearchStatsMemory, type StatsScope } from './stats-memory.ts';

export type SearchWorldsRequest = PhaseRequest & {
  worlds: readonly string[];
  /** Rows in the merged answer. */
  limit: number;
  /** Rows asked of each world (default: `limit`). */
  perWorldLimit?: number;
  /** Keep only the best row of each document. */
  onePerDocument?: boolean;
  /** Rows and nearest titles whose document path this returns true for are left out (the tools leave out generated documents). */
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

/** The statistics memory of a broker process and the caller and place a search is for (stats-memory.ts). */
export type RememberedSearch = { memory: SearchStatsMemory; where: StatsScope };

/** What the worlds have said so far in one search. */
type Gathered = {
  answers: Map<string, WorldAnswer>;
  stats: Map<string, QueryStats>;
  failures: WorldFailure[];
  /** Worlds that scored in the checked round without reporting their statistics. */
  unchecked: Set<string>;
};

/**
 * Full-text search over several worlds with one ranking (the phases are in
 * world-phases.ts). The statistics of every world that returned them are summed
 * (documents are disjoint across worlds, so the sum is the union's exact df and
 * totals) and each world scores with the sum: a rare word is rare everywhere,
 * not only in the world that happens to hold it. One world failing, in any
 * round, is reported beside the others' rows, never instead of them.
 *
 * With `remembered`, and when every world's statistics for these terms are
 * remembered, the first round already scores with their sum and the worlds
 * answer their own statistics beside the rows; when the fresh sum equals the
 * remembered one the rows are final after one round. Otherwise the search goes
 * on exactly as the two-phase search: the answer never depends on the memory.
 */
export async function searchWorlds(
  lookup: LookupFn,
  request: SearchWorldsRequest,
  remembered?: RememberedSearch,
): Promise<SearchOutcome> {
  const perWorld: PhaseRequest = { ...request, limit: request.perWorldLimit ?? request.limit };
  const gathered: Gathered = { answers: new Map(), stats: new Map(), failures: [], unchecked: new Set() };
  const guess = remembered && recallSum(remembered, request.worlds, request.query);
  const settled = guess !== undefined && (await checkedRound(lookup, request.worlds, perWorld, guess, gathered));
  if (!settled) {
    // After a checked round every world has answered but those that scored unchecked.
    const unasked = guess === undefined ? request.worlds : [...gathered.unchecked];
    await statisticsRound(lookup, unasked, perWorld, gathered);
    await scoringRound(lookup, perWorld, gathered);
  }
  if (remembered) rememberAll(remembered, gathered);
  return outcomeOf(request, gathered.answers, gathered.failures);
}

/**
 * Round one with remembered statistics. True when the rows it brought are final:
 * every world that scored also reported its statistics, and their sum is the guess.
 */
async function checkedRound(
  lookup: LookupFn,
  worlds: readonly string[],
  request: PhaseRequest,
  guess: QueryStats,
  gathered: Gathered,
): Promise<boolean> {
  const results = await boundedMap(worlds, worldFanOut, (world) => phaseChecked(lookup, world, request, guess));
  results.forEach((result, i) => {
    const world = worlds[i]!;
    if (!result.ok) gathered.failures.push({ world, error: result.error });
    else if (result.value.kind === 'unchecked') gathered.unchecked.add(world);
    else {
      gathered.answers.set(world, result.value.answer);
      if (result.value.kind === 'checked') gathered.stats.set(world, result.value.own);
    }
  });
  return gathered.unchecked.size === 0 && sameQueryStats(mergeQueryStats([...gathered.stats.values()]), guess);
}

/** Phase one for the worlds whose statistics are not known yet. */
async function statisticsRound(
  lookup: LookupFn,
  worlds: readonly string[],
  request: PhaseRequest,
  gathered: Gathered,
): Promise<void> {
  const results = await boundedMap(worlds, worldFanOut, (world) => phaseOne(lookup, world, request));
  results.forEach((result, i) => {
    const world = worlds[i]!;
    if (!result.ok) gathered.failures.push({ world, error: result.error });
    else if (result.value.kind === 'stats') gathered.stats.set(world, result.value.stats);
    else gathered.answers.set(world, result.value.answer);
  });
}

/** Phase two: every world that reported statistics scores with their sum; rows scored otherwise are dropped. */
async function scoringRound(lookup: LookupFn, request: PhaseRequest, gathered: Gathered): Promise<void> {
  const global = mergeQueryStats([...gathered.stats.values()]);
  const scoring = [...gathered.stats.keys()];
  const results = await boundedMap(scoring, worldFanOut, (world) => phaseTwo(lookup, world, request, global));
  results.forEach((result, i) => {
    const world = scoring[i]!;
    if (result.ok) gathered.answers.set(world, result.value);
    else {
      gathered.answers.delete(world);
      gathered.failures.push({ world, error: result.error });
    }
  });
}

/** The sum of every world's remembered statistics for the query's terms, or undefined when one is unknown. */
function recallSum(remembered: RememberedSearch, worlds: readonly string[], query: string): QueryStats | undefined {
  const terms = parseQuery(query).map((term) => term.text);
  const parts: QueryStats[] = [];
  for (const world of worlds) {
    const stats = remembered.memory.recall(remembered.where, world, terms);
    if (stats === undefined) return undefined;
    if (stats !== null) parts.push(stats);
  }
  return mergeQueryStats(parts);
}

/** Each world's latest word: its statistics, none for a world that answered finally (Go), or that it cannot be checked. */
function rememberAll(remembered: RememberedSearch, gathered: Gathered): void {
  for (const world of gathered.unchecked) remembered.memory.remember(remembered.where, world, 'unchecked');
  for (const [world, stats] of gathered.stats) remembered.memory.remember(remembered.where, world, stats);
  for (const world of gathered.answers.keys())
    if (!gathered.stats.has(world)) remembered.memory.remember(remembered.where, world, null);
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
    nearest: rows.length > 0 ? [] : nearestOver(answers, request.nearest ?? 0, request.skipPath),
    languageHints: [...new Set(names.flatMap((w) => answers.get(w)!.languageHint ?? []))],
  };
}

/**
 * Similarity is computed the same way in every world (edit distance over title words), so it merges as is.
 * A suggestion is left out where its row would be (`skipPath`): the tools do not point at generated documents.
 */
function nearestOver(
  answers: Map<string, WorldAnswer>,
  limit: number,
  skipPath: SearchWorldsRequest['skipPath'],
): SearchOutcome['nearest'] {
  const all = [...answers]
    .flatMap(([world, answer]) => answer.nearest.map((n) => ({ ...n, world })))
    .filter((n) => skipPath?.(n.path) !== true);
  all.sort((a, b) => b.similarity - a.similarity || compareBytes(a.world, b.world) || compareBytes(a.path, b.path));
  return all.slice(0, limit);
}
