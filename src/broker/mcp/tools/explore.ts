import { requiredString, urlDescription } from '../args.ts';
import { bodyText, isBinaryBody, sizeLine } from '../body-text.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { formatToolResult, formatToolResultWith } from '../format-tool-result.ts';
import type { MarkdownDocument } from '../../../markdown/index.ts';
import {
  cappedList,
  headingsReadBound,
  linkLines,
  outlineLines,
  readerDocument,
  unreadHeadingsLine,
} from '../outline-text.ts';
import type { MarkResponse } from '../../../protocol/response.ts';
import { parseList, type ListedEntry } from '../../../protocol/render/list.ts';
import { defineTool } from '../run-tool.ts';
import { readWorld, urlArgument } from '../tool-input.ts';
import { structuredResult } from '../tool-result.ts';
import { cutAnchor } from '../tool-url.ts';
import { uncheckedNote } from './backlinks.ts';
import { describe } from './descriptions.ts';
import {
  exploreSectionCap,
  isMarkUrl,
  renderBacklinksSection,
  resolveReference,
  type BacklinkEntry,
} from '../../graph/index.ts';
import { z } from 'zod';
import { qualifiedWorldUrl } from '../go-format.ts';
import {
  backlinkSchema,
  headingsNotReadData,
  headingsNotReadSchema,
  listingEntryData,
  listingEntrySchema,
  outlineData,
  outlineEntrySchema,
  responseFields,
  responseShape,
} from '../structured.ts';

/** Each list on the card shows at most this many entries, then "+N more" (the graph's backlinks section too). */
const exploreListCap = exploreSectionCap;

const cardKeys = ['version', 'modified', 'etag'] as const;

const outputSchema = {
  ...responseShape,
  mode: z
    .enum(['card', 'binary'])
    .optional()
    .describe(
      'card: the overview below; binary: the document is not markdown (absent when the world did not answer ok)',
    ),
  size: z.string().optional(),
  outline: z
    .array(outlineEntrySchema)
    .optional()
    .describe(`every heading up to ${headingsReadBound}, with its #anchor and section size`),
  headings_not_read: headingsNotReadSchema,
  opening: z.string().optional().describe('the opening paragraph'),
  links: z
    .array(
      z.object({
        text: z.string(),
        href: z.string().describe('the destination as written in the document'),
        url: z.string().optional().describe('the destination as a mark:// URL, when it is one'),
      }),
    )
    .optional()
    .describe('each outbound link once, in document order'),
  backlinks: z
    .array(backlinkSchema)
    .optional()
    .describe(
      `the first ${exploreListCap} links into the document recorded in the broker's link graph, from documents you may read now`,
    ),
  backlink_count: z
    .number()
    .int()
    .optional()
    .describe('recorded links into the document from documents you may read now'),
  siblings: z
    .array(listingEntrySchema)
    .optional()
    .describe('the other entries of its directory (one short page); absent when the listing was unavailable'),
  siblings_complete: z.boolean().optional().describe('false when the directory holds more than the siblings shown'),
  body: z.string().optional().describe("the world's answer body when it did not answer ok"),
};

export const markExplore = defineTool({
  name: 'mark_explore',
  title: 'Explore a document',
  description: describe(
    'Get a one-call overview of a document before reading it: its heading outline with #anchors, opening paragraph, outbound links, known backlinks, and the other entries of its directory.',
    `Each list in the text shows at most ${exploreListCap} entries, then "+N more"; structuredContent carries every heading and outbound link (headings past ${headingsReadBound} are only counted, in headings_not_read), the first ${exploreListCap} backlinks with backlink_count, and one short page of siblings with siblings_complete.`,
    'Use it to decide which sections to read with mark_fetch url#<anchor>.',
  ),
  inputSchema: { url: requiredString('url', urlDescription) },
  outputSchema,
  readOnly: true,
  openWorld: false,
  handler: async (args, ctx) => explore(ctx, args.url),
});

async function explore(ctx: ToolContext, raw: string): Promise<ToolResult> {
  const { url: docUrl } = cutAnchor(raw);
  const target = urlArgument(ctx, docUrl);
  if (!target.ok) return target.error;
  const { world, path } = target.value;
  const answer = await readWorld(ctx, 'explore', world, { verb: 'FETCH', path });
  if (!answer.ok) return answer.error;
  const response = answer.value;
  const url = qualifiedWorldUrl(world, path);
  if (response.status !== 'ok')
    return structuredResult(formatToolResult(response, cardKeys), {
      ...responseFields(url, response),
      body: bodyText(response.body),
    });
  if (isBinaryBody(response.body)) {
    const notice = `not a markdown document (${response.body.byteLength} bytes of binary or non-UTF-8 content); no outline or links to show\n`;
    const extra = { mode: 'binary' };
    return structuredResult(formatToolResultWith(response, notice, extra, cardKeys), {
      ...responseFields(url, response, extra),
      mode: 'binary',
    });
  }
  return card(ctx, response, { docUrl, url, world, path });
}

async function card(
  ctx: ToolContext,
  response: MarkResponse,
  at: { docUrl: string; url: string; world: string; path: string },
): Promise<ToolResult> {
  const doc = readerDocument(bodyText(response.body));
  const { entries: backlinks, unchecked } = await recordedBacklinks(ctx, at.docUrl);
  const siblings = await siblingEntries(ctx, at.world, at.path);
  const text =
    outlineSection(doc) +
    linksSection(doc) +
    renderBacklinksSection(backlinks, unchecked > 0 ? uncheckedNote('linking documents') : '') +
    siblingsSection(siblings, at.path) +
    `\nfetch ${at.docUrl}#<anchor> for a section; mark_fetch force=true for the full body\n`;
  const extra = { size: sizeLine(response.body) };
  const opening = doc.openingParagraph;
  return structuredResult(formatToolResultWith(response, text, extra, cardKeys), {
    ...responseFields(at.url, response, extra),
    mode: 'card',
    size: extra.size,
    outline: outlineData(doc),
    ...headingsNotReadData(doc),
    ...(opening === '' ? {} : { opening }),
    links: doc.distinctLinks.map((link) => {
      const resolved = resolveReference(at.url, link.dest);
      return { text: link.text, href: link.dest, ...(isMarkUrl(resolved) ? { url: resolved } : {}) };
    }),
    backlinks: backlinks.slice(0, exploreListCap),
    backlink_count: backlinks.length,
    ...(siblings === null
      ? {}
      : {
          siblings: siblings.entries.map((entry) => listingEntryData(at.world, entry)),
          siblings_complete: siblings.complete,
        }),
  });
}

function outlineSection(doc: MarkdownDocument): string {
  const headings = outlineLines(doc);
  let out = `## Outline\n${headings.length === 0 ? '(no headings)\n' : cappedList(headings, exploreListCap, 'headings')}`;
  out += unreadHeadingsLine(doc);
  const opening = doc.openingParagraph;
  if (opening !== '') out += `\n## Opening\n${opening}\n`;
  return out;
}

function linksSection(doc: MarkdownDocument): string {
  const links = linkLines(doc);
  return (
    `\n## Outbound links (${links.length})\n` +
    (links.length === 0 ? '(none)\n' : cappedList(links, exploreListCap, 'links'))
  );
}

type RecordedBacklinks = { entries: BacklinkEntry[]; unchecked: number };

/**
 * Backlinks come from the broker's link graph; without one (or when seeding fails) none are recorded.
 * `unchecked` counts sources the read-check bound left out, as mark_backlinks reports them.
 */
async function recordedBacklinks(ctx: ToolContext, docUrl: string): Promise<RecordedBacklinks> {
  const graph = ctx.graph;
  if (graph === undefined) return { entries: [], unchecked: 0 };
  try {
    await graph.seed(ctx.signal, docUrl);
    // Only sources the caller may read now (src/broker/graph/read-check.ts).
    return await graph.readableBacklinks(docUrl, ctx.gateway, ctx.signal);
  } catch {
    return { entries: [], unchecked: 0 };
  }
}

type Siblings = { entries: ListedEntry[]; complete: boolean };

/** The parent directory's other entries, from one short LIST page; null when the listing is unavailable. */
async function siblingEntries(ctx: ToolContext, world: string, path: string): Promise<Siblings | null> {
  const dir = path.slice(0, path.lastIndexOf('/') + 1);
  const self = path.slice(path.lastIndexOf('/') + 1);
  const answer = await readWorld(ctx, 'explore', world, {
    verb: 'LIST',
    path: dir,
    metadata: { 'page-size': String(exploreListCap + 2) },
  });
  if (!answer.ok || answer.value.status !== 'ok') return null;
  const page = parseList(dir, bodyText(answer.value.body), answer.value.metadata);
  if (page.invalid.length > 0) return null;
  const entries = page.entries.filter((entry) => entry.name !== self || entry.kind === 'directory');
  return { entries, complete: page.complete };
}

/** A failed LIST is a note on the card, not an error. */
function siblingsSection(siblings: Siblings | null, path: string): string {
  const heading = `\n## Siblings in ${path.slice(0, path.lastIndexOf('/') + 1)}`;
  if (siblings === null) return `${heading}\n(listing unavailable)\n`;
  const lines = siblings.entries.map((entry) => `- ${entry.kind === 'directory' ? `${entry.name}/` : entry.name}`);
  const count = siblings.complete ? `(${lines.length})` : `(${lines.length}+)`;
  return `${heading} ${count}\n${lines.length === 0 ? '(none)\n' : cappedList(lines, exploreListCap, 'siblings')}`;
}
