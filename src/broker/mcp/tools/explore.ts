import { requiredString, urlDescription } from '../args.ts';
import { bodyText, isBinaryBody, sizeLine } from '../body-text.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { formatToolResult, formatToolResultWith } from '../format-tool-result.ts';
import { openingParagraph } from '../../../markdown/index.ts';
import { cappedList, linkLines, outlineLines } from '../outline-text.ts';
import { parseList } from '../../../protocol/render/list.ts';
import { defineTool } from '../run-tool.ts';
import { readWorld, urlArgument } from '../tool-input.ts';
import { textResult } from '../tool-result.ts';
import { cutAnchor } from '../tool-url.ts';
import { describe, worldUrlHint } from './descriptions.ts';
import { exploreSectionCap, renderBacklinksSection } from '../../graph/index.ts';

/** Each list on the card shows at most this many entries, then "+N more" (the graph's backlinks section too). */
const exploreListCap = exploreSectionCap;

const cardKeys = ['version', 'modified', 'etag'] as const;

export const markExplore = defineTool({
  name: 'mark_explore',
  title: 'Explore a document',
  description: describe(
    'Get a one-call overview of a document before reading it: its heading outline with #anchors, opening paragraph, outbound links, known backlinks, and the other entries of its directory (each list capped at 10).',
    'Use it to decide which sections to read with mark_fetch url#<anchor>.',
    worldUrlHint,
  ),
  inputSchema: { url: requiredString('url', urlDescription) },
  readOnly: true,
  handler: async (args, ctx) => explore(ctx, args.url),
});

async function explore(ctx: ToolContext, raw: string): Promise<ToolResult> {
  const { url: docUrl } = cutAnchor(raw);
  const target = urlArgument(docUrl);
  if (!target.ok) return target.error;
  const { world, path } = target.value;
  const answer = await readWorld(ctx, 'explore', world, { verb: 'FETCH', path });
  if (!answer.ok) return answer.error;
  const response = answer.value;
  if (response.status !== 'ok') return textResult(formatToolResult(response, cardKeys));
  if (isBinaryBody(response.body)) {
    const notice = `not a markdown document (${response.body.byteLength} bytes of binary or non-UTF-8 content); no outline or links to show\n`;
    return textResult(formatToolResultWith(response, notice, { mode: 'binary' }, cardKeys));
  }
  const body = bodyText(response.body);
  const card =
    outlineSection(body) +
    linksSection(body) +
    (await backlinksSection(ctx, docUrl)) +
    (await siblingsSection(ctx, world, path)) +
    `\nfetch ${docUrl}#<anchor> for a section; mark_fetch force=true for the full body\n`;
  return textResult(formatToolResultWith(response, card, { size: sizeLine(response.body) }, cardKeys));
}

function outlineSection(body: string): string {
  const headings = outlineLines(body);
  let out = `## Outline\n${headings.length === 0 ? '(no headings)\n' : cappedList(headings, exploreListCap, 'headings')}`;
  const opening = openingParagraph(body);
  if (opening !== '') out += `\n## Opening\n${opening}\n`;
  return out;
}

function linksSection(body: string): string {
  const links = linkLines(body);
  return (
    `\n## Outbound links (${links.length})\n` +
    (links.length === 0 ? '(none)\n' : cappedList(links, exploreListCap, 'links'))
  );
}

/** Backlinks come from the broker's link graph; without one (or when seeding fails) the card says none are recorded. */
async function backlinksSection(ctx: ToolContext, docUrl: string): Promise<string> {
  const none = renderBacklinksSection([]);
  return ctx.graph ? await ctx.graph.backlinksSection(docUrl, ctx.signal).catch(() => none) : none;
}

/** The parent directory's other entries, from one short LIST page; a failed LIST is a note, not an error. */
async function siblingsSection(ctx: ToolContext, world: string, path: string): Promise<string> {
  const dir = path.slice(0, path.lastIndexOf('/') + 1);
  const self = path.slice(path.lastIndexOf('/') + 1);
  const heading = `\n## Siblings in ${dir}`;
  const answer = await readWorld(ctx, 'explore', world, {
    verb: 'LIST',
    path: dir,
    metadata: { 'page-size': String(exploreListCap + 2) },
  });
  if (!answer.ok || answer.value.status !== 'ok') return `${heading}\n(listing unavailable)\n`;
  const page = parseList(dir, bodyText(answer.value.body), answer.value.metadata);
  if (page.invalid.length > 0) return `${heading}\n(listing unavailable)\n`;
  const lines = page.entries
    .map((entry) => (entry.kind === 'directory' ? `${entry.name}/` : entry.name))
    .filter((name) => name !== self)
    .map((name) => `- ${name}`);
  const count = page.complete ? `(${lines.length})` : `(${lines.length}+)`;
  return `${heading} ${count}\n${lines.length === 0 ? '(none)\n' : cappedList(lines, exploreListCap, 'siblings')}`;
}
