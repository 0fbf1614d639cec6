import type { MarkResponse } from '../../protocol/response.ts';
import type { WorldInfo } from '../worlds/gateway.ts';
import { bodyText } from './body-text.ts';
import type {
  ConcreteResourceDefinition,
  ResourceContents,
  ResourceTemplateDefinition,
  ToolContext,
} from './definitions.ts';
import { goQuote } from './go-format.ts';
import { readerDocument, sectionNotFoundText } from './outline-text.ts';
import { standardPaths, type StandardPart } from '../knowledge/publishing-standard.ts';
import { worldDescriptorPath } from '../knowledge/world-descriptor.ts';
import { agentMessage, toolErrorText } from './tool-result.ts';
import { cutAnchor, parseToolUrl, type ToolUrl } from './tool-url.ts';
import { errorWithCode } from '../../errors/coded-error.ts';

/**
 * Documents as MCP resources (Go broker `mcp_resources.go`): any document through
 * the `mark://{world}/{+path}` template, `#anchor` for one section, and each
 * world's index hub listed by name. Attaching is an explicit act, so a read
 * returns exactly what was asked for: no outline, no "unchanged" notice.
 */
export const markdownMimeType = 'text/markdown';

/** A read that cannot be answered; the HTTP layer turns it into a JSON-RPC error with this message. */
export class ResourceReadError extends errorWithCode('ERR_RESOURCE_READ') {}

/**
 * The world has no document at the URI: the HTTP layer answers it as the SDK's
 * `ResourceNotFoundError`, code -32602 with `data.uri`, which MCP 2026-07-28
 * ("Resources", "Error Handling") makes the resource-not-found answer on every
 * revision (the installed SDK maps -32002 to it and never sends -32002), so a
 * client can tell "nothing there" from a malformed URI. Listed resources can be
 * absent (a world without /world.md, a hub without a policy yet): their
 * descriptions say so.
 */
export class ResourceMissingError extends ResourceReadError {}

/** What every listed resource's description ends with: it is an address, read on demand, not a promise. */
const mayBeAbsent = 'Not there until someone publishes it (resource not found).';

export const documentTemplate: ResourceTemplateDefinition = {
  name: 'knowledge-system document',
  uriTemplate: 'mark://{world}/{+path}',
  description:
    'A document of any world, by world name and path; add #<anchor> (a GitHub-style heading slug) to attach one section. The mark_worlds tool lists the worlds.',
  mimeType: markdownMimeType,
  read: readDocument,
  alsoReads: isWorldRootUri,
};

/**
 * `mark://{world}`, `mark://{world}/` (with or without `#anchor`): the world's root `/`, as every tool
 * reads it (Go `parseToolURL`: empty path → `/`). The template's `{+path}` needs at least one character
 * (RFC 6570 matching in the MCP SDK), so without this resources/read answered "Resource not found".
 */
function isWorldRootUri(uri: string): boolean {
  try {
    return parseToolUrl(cutAnchor(uri).url).path === '/';
  } catch {
    return false;
  }
}

/** One concrete resource per world: its index hub (concrete resources are read through `documentTemplate.read`). */
export function worldIndexResources(worlds: readonly WorldInfo[]): ConcreteResourceDefinition[] {
  return worlds.map((world) => ({
    name: `${world.name}: index hub`,
    uri: `mark://${world.name}/index.md`,
    description: `Entry point of the ${world.name} world: its index document, which links to what the world holds. ${mayBeAbsent}`,
    mimeType: markdownMimeType,
  }));
}

/**
 * Each world's `/world.md` descriptor, and the org's publishing standard on
 * the hub (src/broker/knowledge), when the hub is a configured world. Read,
 * like every document, through `documentTemplate.read` with the caller's rights.
 */
export function knowledgeResources(worlds: readonly WorldInfo[], hub: string): ConcreteResourceDefinition[] {
  const descriptors = worlds.map((world) => ({
    name: `${world.name}: world descriptor`,
    uri: `mark://${world.name}${worldDescriptorPath}`,
    description: `What the ${world.name} world holds, who owns it and what goes where. ${mayBeAbsent}`,
    mimeType: markdownMimeType,
  }));
  if (!worlds.some((world) => world.name === hub)) return descriptors;
  const standard = (Object.entries(standardPaths) as Array<[StandardPart, string]>).map(([part, path]) => ({
    name: `publishing ${part}`,
    uri: `mark://${hub}${path}`,
    description: `${standardDescriptions[part]} ${mayBeAbsent}`,
    mimeType: markdownMimeType,
  }));
  return [...descriptors, ...standard];
}

const standardDescriptions: Record<StandardPart, string> = {
  policy: "The org's publishing policy: the rules the broker checks on every publish, with their severities.",
  template: 'The layout every world follows: which folders exist and what goes in each.',
  style: 'How documents are written: name as H1, a one-sentence summary, unique headings.',
};

export async function readDocument(uri: string, ctx: ToolContext): Promise<ResourceContents> {
  const { url: docUrl, anchor } = cutAnchor(uri);
  let target: ToolUrl;
  try {
    target = parseToolUrl(docUrl, ctx.gateway.list());
  } catch (error) {
    throw new ResourceReadError(`invalid resource URI ${goQuote(uri)}: ${agentMessage(error)}`, { cause: error });
  }
  let response: MarkResponse;
  try {
    response = await ctx.gateway.read(target.world, { verb: 'FETCH', path: target.path, signal: ctx.signal });
  } catch (error) {
    throw new ResourceReadError(
      `fetch ${docUrl}: ${toolErrorText('fetch', target.world, error).replace(/^fetch failed: /, '')}`,
      { cause: error },
    );
  }
  if (response.status === 'not-found') throw new ResourceMissingError(`${docUrl}: not-found`);
  if (response.status !== 'ok') throw new ResourceReadError(`${docUrl}: ${response.status}`);
  let text = bodyText(response.body);
  if (anchor !== '') {
    const doc = readerDocument(text);
    const section = doc.findSection(anchor);
    if (section === null) throw new ResourceReadError(sectionNotFoundText(anchor, docUrl, doc));
    text = section;
  }
  return { uri, mimeType: markdownMimeType, text };
}
