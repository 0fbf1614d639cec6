import { z } from 'zod';
import type { MarkResponse } from '../../../protocol/response.ts';
import { parseLookup } from '../../../protocol/render/lookup.ts';
import { bodyText } from '../body-text.ts';
import { qualifiedWorldUrl } from '../go-format.ts';

/** One LOOKUP row as data (catalog mode; body mode adds the section and its snippet). */
export const lookupRowSchema = z.object({
  url: z.string().describe('the document (with #anchor for a body match), ready for mark_fetch'),
  path: z.string(),
  importance: z.number().describe('0 to 1, as the publisher set it'),
  title: z.string(),
  tags: z.array(z.string()),
  anchor: z.string().optional().describe('the matching section, body mode'),
  snippet: z.string().optional().describe('the matching text, body mode'),
});

export type LookupRowData = z.infer<typeof lookupRowSchema>;

export const lookupRowsShape = {
  rows: z.array(lookupRowSchema).describe("the world's rows, best first"),
  table_error: z.string().optional().describe('why the rows could not be read from the world answer'),
};

export function tagList(tags: string): string[] {
  return tags
    .split(',')
    .map((tag) => tag.trim())
    .filter((tag) => tag !== '');
}

/** The rows of an ok LOOKUP answer; a table the world malformed yields none and says why. */
export function structuredLookupRows(
  world: string,
  response: MarkResponse,
): { rows: LookupRowData[]; table_error?: string } {
  if (response.status !== 'ok') return { rows: [] };
  try {
    const rows = parseLookup(bodyText(response.body), response.metadata).map((row) => {
      const data: LookupRowData = {
        url: qualifiedWorldUrl(world, row.path) + (row.anchor === '' ? '' : `#${row.anchor}`),
        path: row.path,
        importance: row.importance,
        title: row.title,
        tags: tagList(row.tags),
      };
      if (row.anchor !== '') data.anchor = row.anchor;
      if (row.snippet !== '') data.snippet = row.snippet;
      return data;
    });
    return { rows };
  } catch (error) {
    return { rows: [], table_error: error instanceof Error ? error.message : String(error) };
  }
}
