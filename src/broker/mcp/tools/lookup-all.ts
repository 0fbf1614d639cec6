import { z } from 'zod';
import { lookupDefaultLimit } from '../../../protocol/limits.ts';
import { compareBytes } from '../../../protocol/byte-order.ts';
import { lookupQueryRefusal } from '../lookup/query-refusal.ts';
import type { Metadata } from '../../../protocol/metadata.ts';
import {
  includeGeneratedArgument,
  lookupLimitArgument,
  lookupMatchArgument,
  optionalString,
  queryArgument,
  queryLengthText,
  rowsToAsk,
  skippedPaths,
} from '../args.ts';
import { bodyText } from '../body-text.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { boundedMap } from '../../../concurrency/pool.ts';
import { worldFanOut } from '../../fan-out.ts';
import { parseLookup, type ParsedLookupRow } from '../../../protocol/render/lookup.ts';
import { mergeRows, renderLookupAll, type WorldRow } from '../lookup/render-lookup-all.ts';
import { failureDetail } from '../../search/index.ts';
import { defineTool } from '../run-tool.ts';
import { structuredResult, toolError } from '../tool-result.ts';
import { fanOutFields, fanOutShape } from '../structured.ts';
import { worldLookupRowData, worldLookupRowSchema } from '../lookup/structured-rows.ts';
import { renderBodyLookupAll, searchWorlds, WorldSearchError } from '../../search/index.ts';
import { describe } from './descriptions.ts';
import {
  allWorldsFailed,
  type FailedWorld,
  failedWorld,
  gatewayLookup,
  rememberedSearch,
  rowUrl,
  scopeError,
} from './search-support.ts';

const inputSchema = {
  query: queryArgument(
    `subject words matched against tags and titles (at least 2 characters, ${queryLengthText}), or '*' for every catalogued document (catalog match only)`,
  ),
  scope: optionalString('scope', 'path applied in every world, e.g. / or /docs/ (default /)'),
  filter: optionalString(
    'filter',
    'comma-separated key=value conditions applied in every world, e.g. modified-after=2026-01-01',
  ),
  limit: lookupLimitArgument('most rows in the merged table'),
  match: lookupMatchArgument(
    'full text of sections, every query word required, with #anchors, snippets and one ranking across worlds',
  ),
  include_generated: includeGeneratedArgument,
};

const outputSchema = {
  ...fanOutShape,
  matches: z.number().int().describe('rows returned'),
  match: z.enum(['catalog', 'body']),
  ranking: z
    .enum(['score', 'rank', 'mixed'])
    .optional()
    .describe("body mode: score (one scale for every world), rank (each world's order, interleaved) or mixed"),
  rows: z.array(worldLookupRowSchema).describe('the merged rows, best first'),
};

export const markLookupAll = defineTool({
  name: 'mark_lookup_all',
  title: 'Look up documents in every world',
  description: describe(
    'Find documents by subject in every world at once: one merged table of mark://{world}/{path} rows (tags and titles, not full text), each world keeping its own ranking.',
    'status is ok, or partial with a table of the worlds that could not answer; rows from the others are still real.',
    'match=body searches the text of sections instead, every query word required, ranked on one scale across worlds.',
    'Start here when you do not know where something lives; use mark_lookup for one known world, and mark_search for a question in plain words.',
  ),
  inputSchema,
  outputSchema,
  readOnly: true,
  openWorld: false,
  handler: async (args, ctx) => lookupAll(ctx, args),
});

type LookupAllArgs = {
  query: string;
  scope?: string | undefined;
  filter?: string | undefined;
  limit?: number | undefined;
  match?: 'catalog' | 'body' | undefined;
  include_generated?: boolean | undefined;
};

async function lookupAll(ctx: ToolContext, args: LookupAllArgs): Promise<ToolResult> {
  // Every world would refuse it alike (or match nothing); the agent reads why once, and no world is asked.
  const refusal = lookupQueryRefusal(args.query, args.match);
  if (refusal !== undefined) return toolError(refusal);
  const scope = args.scope === undefined || args.scope === '' ? '/' : args.scope;
  const scopeProblem = scopeError(scope);
  if (scopeProblem !== null) return toolError(`invalid scope: ${scopeProblem}`);
  const limit = args.limit ?? lookupDefaultLimit;
  if (args.match === 'body') return bodyLookupAll(ctx, args, scope, limit);
  const worlds = ctx.gateway.list().map((world) => world.name);
  // Generated rows are dropped after each world's limit: ask for enough that they cannot starve the answer.
  const metadata: Metadata = {
    query: args.query,
    limit: String(rowsToAsk(limit, args.include_generated, worlds.length)),
  };
  if (args.filter !== undefined && args.filter !== '') metadata.filter = args.filter;
  const skip = skippedPaths(args.include_generated);
  const answers = await boundedMap(worlds, worldFanOut, (world) => lookupIn(ctx, world, scope, metadata));
  const rows: WorldRow[] = [];
  const failures: FailedWorld[] = [];
  answers.forEach((answer, i) => {
    const world = worlds[i]!;
    if (!answer.ok) {
      failures.push(failedWorld('lookup', world, answer.error));
      return;
    }
    // Ranked among the rows shown, so a world whose first rows were generated is not pushed down the merge.
    const kept = answer.value.filter((row) => !skip(row.path));
    rows.push(...kept.map((row, rank) => ({ ...row, rank, world })));
  });
  failures.sort((a, b) => compareBytes(a.world, b.world));
  if (worlds.length > 0 && failures.length === worlds.length) return allWorldsFailed('lookup', scope, failures);
  const merged = mergeRows(rows, limit);
  return structuredResult(renderLookupAll(args.query, worlds.length, merged, failures), {
    ...fanOutFields(worlds.length, failures),
    matches: merged.length,
    match: 'catalog',
    rows: merged.map(worldLookupRowData),
  });
}

async function lookupIn(
  ctx: ToolContext,
  world: string,
  scope: string,
  metadata: Metadata,
): Promise<ParsedLookupRow[]> {
  const response = await ctx.gateway.read(world, { verb: 'LOOKUP', path: scope, metadata, signal: ctx.signal });
  if (response.status !== 'ok') throw new WorldSearchError(response.status, failureDetail(bodyText(response.body)));
  return parseLookup(bodyText(response.body), response.metadata);
}

/**
 * `match: body` in every world, merged into one ranking: the two-phase search of
 * src/broker/search under the Go `bodymatch.go` rule (every term in every row).
 * Worlds of ours score on one shared scale; a world that does not (Go) is
 * interleaved by its own rank, and `ranking:` says which happened.
 */
async function bodyLookupAll(ctx: ToolContext, args: LookupAllArgs, scope: string, limit: number): Promise<ToolResult> {
  const worlds = ctx.gateway.list().map((world) => world.name);
  const outcome = await searchWorlds(
    gatewayLookup(ctx),
    {
      worlds,
      query: args.query,
      scope,
      filter: args.filter,
      limit,
      perWorldLimit: rowsToAsk(limit, args.include_generated, worlds.length),
      terms: 'all',
      skipPath: skippedPaths(args.include_generated),
    },
    rememberedSearch(ctx, scope, args.filter),
  );
  const failures = outcome.failures.map((f) => failedWorld('lookup', f.world, f.error));
  if (worlds.length > 0 && failures.length === worlds.length) return allWorldsFailed('lookup', scope, failures);
  const text = renderBodyLookupAll({
    query: args.query,
    worldCount: worlds.length,
    rows: outcome.rows,
    ranking: outcome.ranking,
    url: rowUrl,
    failures,
  });
  return structuredResult(text, {
    ...fanOutFields(worlds.length, failures),
    matches: outcome.rows.length,
    match: 'body',
    ranking: outcome.ranking,
    rows: outcome.rows.map(worldLookupRowData),
  });
}
