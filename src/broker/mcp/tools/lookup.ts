import { z } from 'zod';
import type { Metadata } from '../../../protocol/metadata.ts';
import { lookupDefaultLimit } from '../../../protocol/limits.ts';
import { lookupQueryRefusal } from '../lookup/query-refusal.ts';
import {
  includeGeneratedArgument,
  lookupLimitArgument,
  lookupMatchArgument,
  optionalString,
  queryArgument,
  queryLengthText,
  requiredString,
  rowsToAsk,
  skippedPaths,
} from '../args.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { formatToolResult, formatToolResultWith } from '../format-tool-result.ts';
import { bodyText } from '../body-text.ts';
import { qualifyLookupBody } from '../lookup/qualify-lookup-body.ts';
import { defineTool } from '../run-tool.ts';
import { readWorld, urlArgument } from '../tool-input.ts';
import { structuredResult, toolError } from '../tool-result.ts';
import { qualifiedWorldUrl } from '../go-format.ts';
import { lookupRowsShape, structuredLookupRows } from '../lookup/structured-rows.ts';
import { integerOf, responseFields, responseShape } from '../structured.ts';
import { describe } from './descriptions.ts';
import { directoryScopeText, parentDirectory } from './search-support.ts';

const inputSchema = {
  url: requiredString(
    'url',
    'scope to search: mark://{world}/ for the whole world, or a directory such as mark://{world}/docs/',
  ),
  query: queryArgument(
    `subject words matched against tags and titles (at least 2 characters, ${queryLengthText}), or '*' for every document in the scope (catalog match only)`,
  ),
  filter: optionalString(
    'filter',
    'comma-separated key=value conditions, e.g. tag=runbook,modified-after=2026-01-01 (also modified-before=)',
  ),
  limit: lookupLimitArgument('most rows to return', ', as the world does'),
  match: lookupMatchArgument('full text of document sections, every query word required, with snippets and #anchors'),
  include_generated: includeGeneratedArgument,
};

const outputSchema = {
  ...responseShape,
  matches: z.number().int().optional().describe('how many rows the world returned'),
  ...lookupRowsShape,
};

export const markLookup = defineTool({
  name: 'mark_lookup',
  title: 'Look up documents in one world',
  description: describe(
    "Find documents in one world by subject: the query is matched against the catalog's tags and titles and you get a table of mark://{world}/{path} URLs, importance, title and tags, best first, not bodies.",
    "Use query '*' with filter modified-after=YYYY-MM-DD to see what changed; match=body searches the text of sections instead.",
    'When you do not know which world holds something, use mark_lookup_all; for a question in plain words, mark_search.',
  ),
  inputSchema,
  outputSchema,
  readOnly: true,
  openWorld: false,
  handler: async (args, ctx) => lookup(ctx, args),
});

type LookupArgs = {
  url: string;
  query: string;
  filter?: string | undefined;
  limit?: number | undefined;
  match?: 'catalog' | 'body' | undefined;
  include_generated?: boolean | undefined;
};

async function lookup(ctx: ToolContext, args: LookupArgs): Promise<ToolResult> {
  const target = urlArgument(ctx, args.url);
  if (!target.ok) return target.error;
  // A query the world would refuse or could not match is refused here, as mark_lookup_all refuses it
  // (docs/decisions.md); the world validates the rest of query and filter and answers bad-request itself.
  const refusal = lookupQueryRefusal(args.query, args.match);
  if (refusal !== undefined) return toolError(refusal);
  const metadata: Metadata = { query: args.query };
  if (args.filter !== undefined && args.filter !== '') metadata.filter = args.filter;
  const limit = args.limit ?? lookupDefaultLimit;
  // Generated rows are dropped after the world's limit: ask for enough that they cannot starve the answer.
  metadata.limit = String(rowsToAsk(limit, args.include_generated, ctx.gateway.list().length));
  if (args.match !== undefined) metadata.match = args.match;
  const { world, path } = target.value;
  const answer = await readWorld(ctx, 'lookup', world, { verb: 'LOOKUP', path, metadata });
  if (!answer.ok) return answer.error;
  const response = answer.value;
  const url = qualifiedWorldUrl(world, path);
  const reported = integerOf(response.metadata.matches);
  if (response.status !== 'ok') {
    // A document's URL as the scope: the world answers not-found for a document that exists. The status
    // line stays (web apps such as the library read it); the body says what to do instead.
    const text =
      response.status === 'not-found' && !path.endsWith('/')
        ? formatToolResultWith(
            response,
            `${bodyText(response.body)}\n${directoryScopeText(qualifiedWorldUrl(world, parentDirectory(path)))}\n`,
            {},
            ['matches'],
          )
        : formatToolResult(response, ['matches']);
    return structuredResult(text, {
      ...responseFields(url, response),
      ...(reported === undefined ? {} : { matches: reported }),
      rows: [],
    });
  }
  const drop = skippedPaths(args.include_generated);
  // Web apps (the library) parse the reference table's bare paths, as they do for mark_fetch bodies;
  // agents get the mark:// URLs every other tool takes.
  const shown = qualifyLookupBody(bodyText(response.body), world, {
    drop,
    keep: limit,
    qualify: ctx.identity.webClient === undefined,
  });
  const matches = reported === undefined ? undefined : shown.rows;
  const extra: Metadata = matches !== undefined && matches !== reported ? { matches: String(matches) } : {};
  const { rows, table_error } = structuredLookupRows(world, response);
  return structuredResult(formatToolResultWith(response, shown.body, extra, ['matches']), {
    ...responseFields(url, response, extra),
    ...(matches === undefined ? {} : { matches }),
    rows: rows.filter((row) => !drop(row.path)).slice(0, limit),
    ...(table_error === undefined ? {} : { table_error }),
  });
}
