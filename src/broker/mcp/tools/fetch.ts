import type { Metadata } from '../../../protocol/metadata.ts';
import type { MarkResponse } from '../../../protocol/response.ts';
import { optionalBoolean, requiredString, urlDescription } from '../args.ts';
import { bodyText, sizeLine } from '../body-text.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { changedNote, FetchMemory, identified, sameDoc, unchangedNotice, type SeenDoc } from '../fetch-dedup.ts';
import { formatToolResult, formatToolResultWith } from '../format-tool-result.ts';
import { outlineBody, readerDocument, sectionNotFoundText } from '../outline-text.ts';
import { defineTool } from '../run-tool.ts';
import { readWorld, urlArgument } from '../tool-input.ts';
import { structuredResult, toolError } from '../tool-result.ts';
import {
  headingsNotReadData,
  headingsNotReadSchema,
  outlineData,
  outlineEntrySchema,
  responseFields,
  responseShape,
} from '../structured.ts';
import { qualifiedWorldUrl } from '../go-format.ts';
import { z } from 'zod';
import { cutAnchor } from '../tool-url.ts';
import { describe } from './descriptions.ts';

/** Bodies of this many bytes or more come back as an outline unless forced (Go broker `mcp_tools_fetchmode.go`). */
export const outlineThresholdBytes = 8192;

const fetchKeys = ['version', 'modified', 'etag'] as const;

const inputSchema = {
  url: requiredString('url', `${urlDescription}; add #<anchor> to read one section`),
  force: optionalBoolean(
    'force',
    'return the full body even when the document is large or unchanged since an earlier fetch in this session (default false)',
  ),
};

const outputSchema = {
  ...responseShape,
  mode: z
    .enum(['full', 'section', 'outline', 'unchanged'])
    .optional()
    .describe('what body carries: the whole document, one section, an outline instead, or nothing new'),
  body: z.string().optional().describe('the markdown of the document (full) or of the section'),
  section: z.string().optional().describe('the anchor of the section returned'),
  outline: z
    .array(outlineEntrySchema)
    .optional()
    .describe('the headings of a large document, with their #anchors and section sizes in lines'),
  headings_not_read: headingsNotReadSchema,
  size: z.string().optional().describe('the size of a document returned as an outline'),
  note: z.string().optional().describe('how the document changed since an earlier fetch in this session'),
};

export const markFetch = defineTool({
  name: 'mark_fetch',
  title: 'Fetch a document',
  description: describe(
    'Read one document.',
    'Documents under 8 KiB come back whole with status, version, modified and etag; larger ones come back as an outline of headings with #anchors and section sizes.',
    'Append #<anchor> to the URL to read just that section, at any size.',
    'Fetching a document again in the same session answers "unchanged" when it has not changed; force=true always returns the full body.',
  ),
  inputSchema,
  outputSchema,
  readOnly: true,
  openWorld: false,
  handler: async (args, ctx) => fetchDocument(ctx, args.url, args.force === true),
});

async function fetchDocument(ctx: ToolContext, raw: string, force: boolean): Promise<ToolResult> {
  // The fragment names a section here, so it is cut off before the URL is checked.
  const { url: docUrl, anchor } = cutAnchor(raw);
  const target = urlArgument(ctx, docUrl);
  if (!target.ok) return target.error;
  const { world, path } = target.value;
  const answer = await readWorld(ctx, 'fetch', world, { verb: 'FETCH', path });
  if (!answer.ok) return answer.error;
  const response = answer.value;
  const url = qualifiedWorldUrl(world, path);
  if (response.status !== 'ok')
    return structuredResult(formatToolResult(response, fetchKeys), {
      ...responseFields(url, response),
      body: bodyText(response.body),
    });
  const body = bodyText(response.body);
  // A section is content the agent asked for by name: any size, and no dedup.
  if (anchor !== '') {
    const doc = readerDocument(body);
    const section = doc.findSection(anchor);
    if (section === null) return toolError(sectionNotFoundText(anchor, docUrl, doc));
    const extra = { section: `#${anchor}` };
    return structuredResult(formatToolResultWith(response, section, extra, fetchKeys), {
      ...responseFields(url, response, extra),
      mode: 'section',
      section: anchor,
      body: section,
    });
  }
  return wholeDocument(ctx, response, body, { docUrl, url }, `${world}${path}`, force);
}

function wholeDocument(
  ctx: ToolContext,
  response: MarkResponse,
  body: string,
  urls: { docUrl: string; url: string },
  key: string,
  force: boolean,
): ToolResult {
  const { docUrl, url } = urls;
  // A web client renders documents for people (docs/signin.md "Web apps"): it always gets them whole
  // and the session keeps no memory for it. The library shows every metadata line it does not know
  // in the page's margin (demarkus-library internal/core/service/reading.go `otherMeta`), so a
  // "note: changed since this session's earlier fetch" would read as the document's own metadata.
  const forPeople = ctx.identity.webClient !== undefined;
  const whole = force || forPeople;
  const memory = forPeople ? undefined : new FetchMemory(ctx.session);
  const current: SeenDoc = { version: response.metadata.version ?? '', etag: response.metadata.etag ?? '' };
  const previous = memory?.lookup(key);
  if (previous !== undefined && !whole && identified(current) && sameDoc(previous, current)) {
    const { version, etag, modified } = responseFields(url, response);
    return structuredResult(unchangedNotice(current), {
      status: 'unchanged',
      url,
      mode: 'unchanged',
      ...(version === undefined ? {} : { version }),
      ...(etag === undefined ? {} : { etag }),
      ...(modified === undefined ? {} : { modified }),
      metadata: {
        ...(current.version === '' ? {} : { version: current.version }),
        ...(current.etag === '' ? {} : { etag: current.etag }),
      },
    });
  }
  const extra: Metadata = {};
  if (previous !== undefined && !sameDoc(previous, current)) extra.note = changedNote(previous, current);
  if (!whole && response.body.byteLength >= outlineThresholdBytes) {
    // An outline is not the body: the document is not recorded as seen.
    extra.mode = 'outline';
    extra.size = sizeLine(response.body);
    const doc = readerDocument(body);
    const outline = outlineData(doc);
    return structuredResult(formatToolResultWith(response, outlineBody(docUrl, doc), extra, fetchKeys), {
      ...responseFields(url, response, extra),
      mode: 'outline',
      size: extra.size,
      outline,
      ...headingsNotReadData(doc),
      ...(extra.note === undefined ? {} : { note: extra.note }),
    });
  }
  memory?.record(key, current);
  return structuredResult(formatToolResultWith(response, body, extra, fetchKeys), {
    ...responseFields(url, response, extra),
    mode: 'full',
    body,
    ...(extra.note === undefined ? {} : { note: extra.note }),
  });
}
