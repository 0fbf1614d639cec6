import type { Metadata } from '../../../protocol/metadata.ts';
import { maxListPageEntries } from '../../../protocol/limits.ts';
import { optionalBoolean, optionalInteger, optionalString, requiredString, urlDescription } from '../args.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { formatToolResult } from '../format-tool-result.ts';
import { defineTool } from '../run-tool.ts';
import { readWorld, urlArgument } from '../tool-input.ts';
import { structuredResult, toolError } from '../tool-result.ts';
import { z } from 'zod';
import { qualifiedWorldUrl } from '../go-format.ts';
import { parseList } from '../../../protocol/render/list.ts';
import { bodyText } from '../body-text.ts';
import { listingEntryData, listingEntrySchema, responseFields, responseShape } from '../structured.ts';
import { describe } from './descriptions.ts';

const inputSchema = {
  url: requiredString('url', `${urlDescription} (a directory, e.g. mark://team-a/docs/)`),
  include_archived: optionalBoolean(
    'include_archived',
    'also list archived documents and directories holding only archived documents (default false)',
  ),
  cursor: optionalString('cursor', 'the next-cursor value of the previous page, to continue a long listing'),
  page_size: optionalInteger(
    'page_size',
    `entries per page, 1 to ${maxListPageEntries} (default ${maxListPageEntries})`,
    { min: 1, max: maxListPageEntries },
  ),
};

const outputSchema = {
  ...responseShape,
  entries: z.array(listingEntrySchema).describe('the entries of this page, as the world ordered them'),
  complete: z.boolean().describe('false when more entries remain: pass next_cursor as cursor'),
  next_cursor: z.string().optional(),
};

export const markList = defineTool({
  name: 'mark_list',
  title: 'List a directory',
  description: describe(
    'List the entries of one directory in a world: documents and subdirectories.',
    'Archived documents are left out unless include_archived is true.',
    'A long directory comes in pages (complete: false); pass the returned next-cursor as cursor to get the next page.',
    'To survey the surroundings of one document, mark_explore is usually the better call.',
  ),
  inputSchema,
  outputSchema,
  readOnly: true,
  openWorld: false,
  handler: async (args, ctx) => list(ctx, args),
});

async function list(
  ctx: ToolContext,
  args: {
    url: string;
    include_archived?: boolean | undefined;
    cursor?: string | undefined;
    page_size?: number | undefined;
  },
): Promise<ToolResult> {
  const target = urlArgument(ctx, args.url);
  if (!target.ok) return target.error;
  const metadata: Metadata = {};
  if (args.include_archived === true) metadata['include-archived'] = 'true';
  if (args.cursor !== undefined && args.cursor !== '') metadata.cursor = args.cursor;
  if (args.page_size !== undefined) {
    // Mark SPEC §6.2: page-size runs 1..1000; checked here so the agent gets the argument's own name.
    if (args.page_size < 1 || args.page_size > maxListPageEntries)
      return toolError(`page_size must be between 1 and ${maxListPageEntries}`);
    metadata['page-size'] = String(args.page_size);
  }
  const { world, path } = target.value;
  const answer = await readWorld(ctx, 'list', world, { verb: 'LIST', path, metadata });
  if (!answer.ok) return answer.error;
  const response = answer.value;
  const page = response.status === 'ok' ? parseList(path, bodyText(response.body), response.metadata) : null;
  return structuredResult(formatToolResult(response, ['modified']), {
    ...responseFields(qualifiedWorldUrl(world, path), response),
    entries: (page?.entries ?? []).map((entry) => listingEntryData(world, entry)),
    complete: page?.complete ?? true,
    ...(page?.nextCursor ? { next_cursor: page.nextCursor } : {}),
  });
}
