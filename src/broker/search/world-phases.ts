import { failureDetail } from './failure-detail.ts';
import type { Metadata } from '../../protocol/metadata.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import {
  decodeNearest,
  decodeQueryStats,
  decodeScores,
  encodeQueryStats,
  lookupExtensionKeys as keys,
  LookupExtensionError,
  ownStatsValue,
  statsOnlyValue,
  type NearestTitleEntry,
  type QueryStats,
} from '../../search/index.ts';
import { LookupAnswerError, parseLookup, type ParsedLookupRow as TableRow } from '../../protocol/render/lookup.ts';
import { errorWithCode } from '../../errors/coded-error.ts';

/**
 * The LOOKUP calls of a cross-world body search, for one world.
 *
 * Phase one asks for the world's statistics (`corpus-stats: only`). A world of
 * ours answers them and no rows; a world that does not know the extension (the
 * Go server) ignores the key and answers an ordinary Go `bodymatch.go` body match, which is
 * then that world's final answer, ranked by its own order. Phase two sends the
 * merged statistics back; the world scores with them and returns `row-scores`,
 * one number per row on a scale shared by every world of the search.
 *
 * The checked round does both at once with statistics the broker remembers
 * (stats-memory.ts): the world scores with them and also answers its own
 * statistics (`own-stats: include`), so the broker can tell whether the rows
 * are the ones phase two would have given.
 */
export type LookupFn = (
  world: string,
  call: { verb: 'LOOKUP'; path: string; metadata: Metadata },
) => Promise<MarkResponse>;

export type PhaseRequest = {
  query: string;
  scope: string;
  filter?: string | undefined;
  /** Rows asked of each world. */
  limit: number;
  /** `all`: the Go `bodymatch.go` rule; `any`: the relaxed ranking (worlds of ours only). */
  terms: 'all' | 'any';
  /** Ask for this many nearest titles when a world has no row. */
  nearest?: number | undefined;
};

/** A world's answer: rows, their scores when comparable, and what the world said about itself. */
export type WorldAnswer = {
  rows: TableRow[];
  /** Scores on the shared scale, one per row; absent when the world did not score. */
  scores?: number[];
  /** How the world matched: `any` only when it echoed the relaxed mode; `catalog` for a catalog-only answer. */
  matched: 'all' | 'any' | 'catalog';
  nearest: NearestTitleEntry[];
  languageHint?: string;
};

export type PhaseOne = { kind: 'stats'; stats: QueryStats } | { kind: 'final'; answer: WorldAnswer };

/**
 * A world's answer to the checked round: rows scored with the remembered sums and
 * its own statistics (`checked`); rows scored but no statistics (`unchecked`: a
 * world of ours from before `own-stats`); or its final answer (Go), as in phase one.
 */
export type CheckedAnswer =
  | { kind: 'checked'; answer: WorldAnswer; own: QueryStats }
  | { kind: 'unchecked'; answer: WorldAnswer }
  | { kind: 'final'; answer: WorldAnswer };

/**
 * A world answered, but not `ok`; the message is the world's status and its own words, and
 * `status` the status alone, for callers that decide by it (search-support.ts `allWorldsFailed`)
 * without reading the message back.
 */
export class WorldSearchError extends errorWithCode('ERR_WORLD_SEARCH') {
  readonly status: string;
  /** `detail` is the world's own words, already shortened and led by `: `, or empty. */
  constructor(status: string, detail: string) {
    super(`status ${status}${detail}`);
    this.status = status;
  }
}

export async function phaseOne(lookup: LookupFn, world: string, request: PhaseRequest): Promise<PhaseOne> {
  const response = await ask(lookup, world, request, { [keys.corpusStats]: statsOnlyValue });
  const stats = statsOf(response);
  return stats === undefined ? { kind: 'final', answer: answerOf(response, request, false) } : { kind: 'stats', stats };
}

export async function phaseChecked(
  lookup: LookupFn,
  world: string,
  request: PhaseRequest,
  remembered: QueryStats,
): Promise<CheckedAnswer> {
  const extra: Metadata = { ...scoringExtension(request, remembered), [keys.ownStats]: ownStatsValue };
  const response = await ask(lookup, world, request, extra);
  const answer = answerOf(response, request, true);
  if (answer.scores === undefined) return { kind: 'final', answer };
  const own = statsOf(response);
  return own === undefined ? { kind: 'unchecked', answer } : { kind: 'checked', answer, own };
}

/** The world's own statistics in a response, or undefined when it sent none. */
function statsOf(response: MarkResponse): QueryStats | undefined {
  const totals = response.metadata[keys.corpusStats];
  if (totals === undefined || totals === statsOnlyValue) return undefined;
  try {
    return decodeQueryStats(totals, response.metadata[keys.corpusDf] ?? '');
  } catch (error) {
    if (error instanceof LookupExtensionError)
      throw new LookupAnswerError(`malformed LOOKUP response: ${error.message}`);
    throw error;
  }
}

export async function phaseTwo(
  lookup: LookupFn,
  world: string,
  request: PhaseRequest,
  global: QueryStats,
): Promise<WorldAnswer> {
  return answerOf(await ask(lookup, world, request, scoringExtension(request, global)), request, true);
}

/** What a scoring round sends: the statistics to score with and, when asked for, the nearest titles. */
function scoringExtension(request: PhaseRequest, stats: QueryStats): Metadata {
  const extra: Metadata = { ...encodeQueryStats(stats) };
  if (request.nearest !== undefined) extra[keys.nearestTitles] = String(request.nearest);
  return extra;
}

async function ask(lookup: LookupFn, world: string, request: PhaseRequest, extra: Metadata): Promise<MarkResponse> {
  const metadata: Metadata = { query: request.query, match: 'body', limit: String(request.limit), ...extra };
  if (request.terms === 'any') metadata[keys.matchTerms] = 'any';
  if (request.filter !== undefined && request.filter !== '') metadata.filter = request.filter;
  const response = await lookup(world, { verb: 'LOOKUP', path: request.scope, metadata });
  if (response.status !== 'ok')
    throw new WorldSearchError(response.status, failureDetail(new TextDecoder().decode(response.body)));
  return response;
}

/** A world's LOOKUP answer read back into rows (src/protocol/render/lookup.ts). */
export function parseLookupRows(response: MarkResponse): TableRow[] {
  return parseLookup(new TextDecoder().decode(response.body), response.metadata);
}

function answerOf(response: MarkResponse, request: PhaseRequest, scored: boolean): WorldAnswer {
  const rows = parseLookupRows(response);
  // Go `bodymatch.go`: a reply without the `match: body` echo is a catalog answer.
  const body = response.metadata.match === 'body';
  const relaxed = body && request.terms === 'any' && response.metadata[keys.matchTerms] === 'any';
  const answer: WorldAnswer = {
    rows,
    matched: !body ? 'catalog' : relaxed ? 'any' : 'all',
    nearest: decodeNearest(response.metadata[keys.nearestTitles]),
  };
  const scores = scored ? decodeScores(response.metadata[keys.rowScores], rows.length) : undefined;
  if (scores !== undefined) answer.scores = scores;
  const hint = response.metadata[keys.languageHint];
  if (hint !== undefined && hint !== '') answer.languageHint = hint;
  return answer;
}
