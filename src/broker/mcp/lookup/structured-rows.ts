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

/** A row of a lookup across worlds: the world it came from and, for a body match, its score on the shared scale. */
export const worldLookupRowSchema = lookupRowSchema.extend({
  world: z.string(),
  score: z.number().optional().describe('body mode: the score on one scale across worlds, when the world gave one'),
});

type RowFacts = {
  path: string;
  anchor?: string;
  importance: number;
  title: string;
  tags: string;
  snippet?: string;
};

/** One row as data: its URL (with #anchor for a section), the tags as a list, and empty optional cells left out. */
export function lookupRowData(world: string, row: RowFacts): LookupRowData {
  const anchor = row.anchor ?? '';
  const data: LookupRowData = {
    url: qualifiedWorldUrl(world, row.path) + (anchor === '' ? '' : `#${anchor}`),
    path: row.path,
    importance: row.importance,
    title: row.title,
    tags: tagList(row.tags),
  };
  if (anchor !== '') data.anchor = anchor;
  if (row.snippet !== undefined && row.snippet !== '') data.snippet = row.snippet;
  return data;
}

export function worldLookupRowData(
  row: RowFacts & { world: string; score?: number | undefined },
): z.infer<typeof worldLookupRowSchema> {
  return {
    ...lookupRowData(row.world, row),
    world: row.world,
    ...(row.score === undefined ? {} : { score: row.score }),
  };
}

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
    return { rows: parseLookup(bodyText(response.body), response.metadata).map((row) => lookupRowData(world, row)) };
  } catch (error) {
    return { rows: [], table_error: error instanceof Error ? error.message : String(error) };
  }
}
