import { goTrimSpace } from '../../../protocol/go-strings.ts';
import { isLookupQueryTooShort, lookupQueryTooShortMessage } from '../../../protocol/lookup-query.ts';
import {
  fitQuery,
  hitOf,
  renderSearchText,
  searchWorlds,
  type SearchOutcome,
  type SearchText,
} from '../../search/index.ts';
import {
  includeGeneratedArgument,
  optionalInteger,
  optionalString,
  queryArgument,
  queryLengthText,
  rowsToAsk,
  skippedPaths,
} from '../args.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { defineTool } from '../run-tool.ts';
import { structuredResult, toolError, unknownWorldText } from '../tool-result.ts';
import { worldInArgument, worldNamed } from '../../worlds/world-aliases.ts';
import type { WorldInfo } from '../../worlds/gateway.ts';
import { goQuote } from '../../../protocol/go-quote.ts';
import type { Outcome } from '../tool-input.ts';
import { parseToolUrl, ToolUrlError, type ToolUrl } from '../tool-url.ts';
import { z } from 'zod';
import { fanOutFields, fanOutShape } from '../structured.ts';
import { describe } from './descriptions.ts';
import { allWorldsFailed, failedWorld, gatewayLookup, rememberedSearch, rowUrl, scopeError } from './search-support.ts';

/** Documents in one answer, at most; a search is for finding where to read, not for reading. */
export const searchMaxLimit = 100;
export const searchDefaultLimit = 10;
/** Rows asked of each world per wanted document: a document may fill several of its sections. */
const rowsPerDocument = 5;
const nearestTitles = 3;

const inputSchema = {
  query: queryArgument(
    `what you are looking for, in plain words or as a question (at least 2 characters, ${queryLengthText})`,
  ),
  world: optionalString(
    'world',
    'search only this world (its name, or an address from mark_worlds); default: every world',
  ),
  scope: optionalString(
    'scope',
    'path searched in each world, e.g. / or /docs/ (default /); a mark://{world}/{path} folder URL searches that world only',
  ),
  filter: optionalString('filter', 'comma-separated key=value conditions, e.g. tag=runbook,modified-after=2026-01-01'),
  limit: optionalInteger(
    'limit',
    `most documents to return (default ${searchDefaultLimit}, at most ${searchMaxLimit})`,
    { min: 1, max: searchMaxLimit },
  ),
  include_generated: includeGeneratedArgument,
};

const outputSchema = {
  ...fanOutShape,
  matches: z.number().int().describe('documents returned'),
  ranking: z
    .enum(['score', 'rank', 'mixed'])
    .optional()
    .describe("score: one scale for every world; rank: each world's own order, interleaved; mixed: both"),
  hits: z
    .array(
      z.object({
        url: z.string().describe('the best section, mark://{world}/{path}#anchor, ready for mark_fetch'),
        title: z.string(),
        score: z
          .number()
          .nullable()
          .describe('on one scale across worlds; null from a world that ranks by its own order'),
        snippet: z.string(),
      }),
    )
    .describe('one row per document, best first'),
  nearest: z
    .array(z.object({ url: z.string(), title: z.string() }))
    .describe('when nothing matched: the documents whose titles come nearest the query'),
  notes: z.array(z.string()).describe('how some worlds matched, and language hints'),
};

/**
 * Decision: a separate tool rather than a mode of mark_lookup_all. Agents ask
 * questions in sentences; LOOKUP `match: body` requires every word to be found,
 * which answers such questions with nothing (bench/search-eval.ts: recall@3
 * 0.25 strict against 0.875 relaxed). mark_search always ranks by how much of
 * the question a section covers, shows one row per document with its best
 * section and a snippet, and, when nothing matches, names the nearest titles
 * and where to browse instead of answering an empty table.
 */
export const markSearch = defineTool({
  name: 'mark_search',
  title: 'Search the text of every world',
  description: describe(
    'Full-text search across worlds: ask in plain words or a whole question and get the best-matching documents, one row each, with the section URL (mark://{world}/{path}#anchor), a score on one scale for all worlds, the title and a snippet.',
    'Not every word has to appear; documents covering more of the question, and rarer words, rank higher.',
    'Read a hit with mark_fetch on its URL. Use mark_lookup_all instead when you know the tag or title words.',
  ),
  inputSchema,
  outputSchema,
  readOnly: true,
  openWorld: false,
  handler: async (args, ctx) => search(ctx, args),
});

type SearchArgs = {
  query: string;
  world?: string | undefined;
  scope?: string | undefined;
  filter?: string | undefined;
  limit?: number | undefined;
  include_generated?: boolean | undefined;
};

async function search(ctx: ToolContext, args: SearchArgs): Promise<ToolResult> {
  // Trimmed and measured as every world will (Go strings.TrimSpace counts U+0085, JavaScript's trim() does not).
  const query = goTrimSpace(args.query);
  if (query === '*')
    return toolError("query '*' matches no text; use mark_lookup_all with query '*' to list documents");
  if (isLookupQueryTooShort(query)) return toolError(lookupQueryTooShortMessage);
  const fitted = fitQuery(query);
  if ('refusal' in fitted) return toolError(fitted.refusal);
  const target = searchTarget(ctx, args);
  if (!target.ok) return target.error;
  const { worlds, scope } = target.value;
  const limit = args.limit ?? searchDefaultLimit;
  const outcome = await searchWorlds(
    gatewayLookup(ctx),
    {
      worlds,
      query: fitted.query,
      scope,
      filter: args.filter,
      limit,
      perWorldLimit: rowsToAsk(limit * rowsPerDocument, args.include_generated, ctx.gateway.list().length),
      terms: 'any',
      nearest: nearestTitles,
      onePerDocument: true,
      skipPath: skippedPaths(args.include_generated),
    },
    rememberedSearch(ctx, scope, args.filter),
  );
  const failed = outcome.failures.map((f) => failedWorld('search', f.world, f.error));
  if (worlds.length > 0 && failed.length === worlds.length) return allWorldsFailed('search', scope, failed);
  const answer: SearchText = {
    status: failed.length > 0 ? 'partial' : 'ok',
    worlds: worlds.length,
    failed: failed.map((f) => ({ world: f.world, message: f.message })),
    ranking: outcome.ranking,
    hits: outcome.rows.map((row) => hitOf(row, rowUrl)),
    nearest: outcome.nearest.map((n) => ({
      url: rowUrl({ world: n.world, path: n.path, anchor: '' }),
      title: n.title,
    })),
    notes: notesFor(outcome),
  };
  return structuredResult(renderSearchText(query, answer), {
    ...fanOutFields(answer.worlds, answer.failed),
    matches: answer.hits.length,
    ...(answer.ranking === undefined || answer.hits.length === 0 ? {} : { ranking: answer.ranking }),
    hits: answer.hits,
    nearest: answer.nearest,
    notes: answer.notes,
  });
}

/**
 * The worlds searched and the path searched in each. `world` is read in every form mark_worlds
 * shows (`worldInArgument`, the home URL arguments share); `scope` is a path, or a
 * `mark://{world}/{path}` URL in any of those forms, which names the world too (agents copy
 * folder URLs from mark_list). A scope in one world with `world` naming another is refused rather
 * than one of them silently winning.
 */
function searchTarget(ctx: ToolContext, args: SearchArgs): Outcome<{ worlds: string[]; scope: string }> {
  const known = ctx.gateway.list();
  const refuse = (text: string) => ({ ok: false as const, error: toolError(text) });
  let one: WorldInfo | undefined;
  if (args.world !== undefined) {
    one = worldInArgument(args.world, known);
    if (one === undefined) return refuse(unknownWorldText(args.world, known));
  }
  let scope = args.scope === undefined || args.scope === '' ? '/' : args.scope;
  if (/^mark:\/\//i.test(scope)) {
    let url: ToolUrl;
    try {
      url = parseToolUrl(scope, known);
    } catch (error) {
      if (!(error instanceof ToolUrlError)) throw error;
      return refuse(`invalid scope: ${error.message}`);
    }
    const scoped = worldNamed(url.world, known);
    if (scoped === undefined) return refuse(unknownWorldText(url.world, known));
    if (one !== undefined && one.name !== scoped.name)
      return refuse(
        `scope ${goQuote(scope)} is in world ${goQuote(scoped.name)}, but world is ${goQuote(one.name)}: leave world out, or give scope as a path such as ${url.path}`,
      );
    one = scoped;
    scope = url.path;
  }
  const scopeProblem = scopeError(scope);
  if (scopeProblem !== null) return refuse(`invalid scope: ${scopeProblem}`);
  return { ok: true, value: { worlds: one !== undefined ? [one.name] : known.map((w) => w.name), scope } };
}

function notesFor(outcome: SearchOutcome): string[] {
  const notes: string[] = [];
  if (outcome.strictWorlds.length > 0) {
    notes.push(
      `${outcome.strictWorlds.join(', ')}: rows there contain every query word (that world ranks no partial matches), and are placed by that world's own rank`,
    );
  }
  if (outcome.catalogWorlds.length > 0)
    notes.push(`${outcome.catalogWorlds.join(', ')}: no full-text search there; rows match tags and titles only`);
  if (outcome.rows.length === 0) notes.push(...outcome.languageHints);
  return notes;
}
