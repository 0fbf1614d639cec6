/**
 * The data half of a tool answer (MCP `structuredContent`): the same facts as
 * the text, as fields a web backend or an agent reads without parsing
 * markdown. One home for the pieces every tool's `outputSchema` shares: the
 * world's status, the document URL, the version/etag/modified identity and
 * the world's own metadata.
 */
import { z } from 'zod';
import type { Metadata } from '../../protocol/metadata.ts';
import type { MarkResponse } from '../../protocol/response.ts';

export const statusField = z
  .string()
  .describe('the world status (ok, not-found, conflict, not-permitted, archived, ...) or the tool status');
export const urlField = z.string().describe('the mark://{world}/{path} URL the answer is about');
export const metadataField = z
  .record(z.string(), z.string())
  .describe('every metadata field of the answer, as the world sent it');

/** The fields every answer about one world response has. */
export const responseShape = {
  status: statusField,
  url: urlField,
  version: z.number().int().optional().describe('the document version, when the world named one'),
  etag: z.string().optional(),
  modified: z.string().optional().describe('RFC 3339 time of the version'),
  metadata: metadataField,
};

export type ResponseFields = {
  status: string;
  url: string;
  version?: number;
  etag?: string;
  modified?: string;
  metadata: Metadata;
};

/** The shared fields of one world response; `extra` metadata (tool notes) is merged over a copy. */
export function responseFields(url: string, response: MarkResponse, extra: Readonly<Metadata> = {}): ResponseFields {
  const metadata = { ...response.metadata, ...extra };
  const fields: ResponseFields = { status: response.status, url, metadata };
  const version = integerOf(metadata.version);
  if (version !== undefined) fields.version = version;
  if (metadata.etag !== undefined) fields.etag = metadata.etag;
  if (metadata.modified !== undefined) fields.modified = metadata.modified;
  return fields;
}

/** A metadata value that is a decimal integer, as a number; anything else is left out. */
export function integerOf(value: string | undefined): number | undefined {
  if (value === undefined || !/^[+-]?\d+$/.test(value.trim())) return undefined;
  const parsed = Number(value.trim());
  return Number.isSafeInteger(parsed) ? parsed : undefined;
}

/** What a write answers: the world's response, or the merge candidate mark_publish built instead of writing. */
export const writeShape = {
  ...responseShape,
  merge: z
    .object({
      your_version: z.number().int().describe('the expected_version you sent'),
      current_version: z.number().int().describe('the version someone else published in between'),
      publish_at_version: z.number().int().describe('the expected_version to publish the reviewed body with'),
      has_markers: z.boolean().describe('true when both sides changed the same lines: the body has conflict markers'),
      body: z.string().describe('the merged body to review, fix and publish'),
    })
    .optional()
    .describe('status merge-candidate: nothing was written'),
};
