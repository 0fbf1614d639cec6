import { isValidRequestPath } from '../../../protocol/paths.ts';
import { lookupDefaultLimit, lookupMaxLimit, maxRequestPathBytes } from '../../../protocol/limits.ts';
import { compareBytes } from '../../../protocol/yaml-map.ts';
import type { Metadata } from '../../../protocol/metadata.ts';
import { optionalInteger, optionalString, requiredString } from '../args.ts';
import { bodyText } from '../body-text.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { boundedMap } from '../lookup/bounded-map.ts';
import { parseLookupTable, type LookupTableRow } from '../lookup/parse-lookup-table.ts';
import { failureDetail, mergeRows, renderLookupAll, type WorldFailure, type WorldRow } from '../lookup/render-lookup-all.ts';
import { defineTool } from '../run-tool.ts';
import { textResult, toolError, toolErrorText, ToolStepError } from '../tool-result.ts';
import { describe } from './descriptions.ts';

/** Worlds asked at once; the gateway keeps a slow world from holding up the others. */
export const lookupAllConcurrency = 8;

const inputSchema = {
  query: requiredString('query', "subject words matched against tags and titles (at least 2 characters), or '*' for every catalogued document"),
  scope: optionalString('scope', 'path applied in every world, e.g. / or /docs/ (default /)'),
  filter: optionalString('filter', 'comma-separated key=value conditions applied in every world, e.g. modified-after=2026-01-01'),
  limit: optionalInteger('limit', `most rows in the merged table (default ${lookupDefaultLimit}, at most ${lookupMaxLimit})`),
};

export const markLookupAll = defineTool({
  name: 'mark_lookup_all',
  title: 'Look up documents in every world',
  description: describe(
    'Find documents by subject in every world at once: one merged table of mark://{world}/{path} rows (tags and titles, not full text), each world keeping its own ranking.',
    'status is ok, or partial with a table of the worlds that could not answer; rows from the others are still real.',
    'Start here when you do not know where something lives; use mark_lookup for one known world.',
  ),
  inputSchema,
  readOnly: true,
  handler: async (args, ctx) => lookupAll(ctx, args),
});

type LookupAllArgs = { query: string; scope?: string | undefined; filter?: string | undefined; limit?: number | undefined };

async function lookupAll(ctx: ToolContext, args: LookupAllArgs): Promise<ToolResult> {
  const scope = args.scope === undefined || args.scope === '' ? '/' : args.scope;
  const scopeProblem = scopeError(scope);
  if (scopeProblem !== null) return toolError(`invalid scope: ${scopeProblem}`);
  const requested = args.limit ?? lookupDefaultLimit;
  if (requested < 1) return toolError('limit must be at least 1');
  const limit = Math.min(requested, lookupMaxLimit);
  const metadata: Metadata = { query: args.query, limit: String(limit) };
  if (args.filter !== undefined && args.filter !== '') metadata['filter'] = args.filter;
  const worlds = ctx.gateway.list().map((world) => world.name);
  const answers = await boundedMap(worlds, lookupAllConcurrency, (world) => lookupIn(ctx, world, scope, metadata));
  const rows: WorldRow[] = [];
  const failures: WorldFailure[] = [];
  answers.forEach((answer, i) => {
    const world = worlds[i]!;
    if (answer.ok) rows.push(...answer.value.map((row) => ({ ...row, world })));
    else failures.push({ world, message: failureMessage(world, answer.error) });
  });
  failures.sort((a, b) => compareBytes(a.world, b.world));
  if (worlds.length > 0 && failures.length === worlds.length) {
    return toolError('lookup failed in all worlds: ' + failures.map((f) => `${f.world}: ${f.message}`).join('; '));
  }
  return textResult(renderLookupAll(args.query, worlds.length, mergeRows(rows, limit), failures));
}

async function lookupIn(ctx: ToolContext, world: string, scope: string, metadata: Metadata): Promise<LookupTableRow[]> {
  const response = await ctx.gateway.read(world, { verb: 'LOOKUP', path: scope, metadata, signal: ctx.signal });
  if (response.status !== 'ok') throw new ToolStepError(`status ${response.status}${failureDetail(bodyText(response.body))}`);
  return parseLookupTable(response);
}

/** A world's failure in its own words: the world's status, the table problem, or the gateway's reason. */
function failureMessage(world: string, error: unknown): string {
  const text = toolErrorText('lookup', world, error);
  return text.startsWith('lookup failed: ') ? text.slice('lookup failed: '.length) : text;
}

/** Mark reference §1.2 path rules, worded for the agent. */
function scopeError(scope: string): string | null {
  if (isValidRequestPath(scope)) return null;
  if (!scope.startsWith('/')) return `path must start with "/": ${scope}`;
  if (Buffer.byteLength(scope) > maxRequestPathBytes) return `path exceeds ${maxRequestPathBytes} bytes`;
  return 'path contains control characters';
}
