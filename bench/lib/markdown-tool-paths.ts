/**
 * The markdown work of the broker tools that parse a body, in the order the
 * tools do it and through the functions they call (src/broker/mcp/tools/fetch.ts,
 * src/broker/mcp/tools/explore.ts), without the world request around it:
 * what bench/markdown-worst.ts times per call.
 */
import { distinctLinks, findSection, openingParagraph } from '../../src/markdown/index.ts';
import { linkLines, outlineBody, outlineLines, sectionNotFoundText } from '../../src/broker/mcp/outline-text.ts';
import { outlineData } from '../../src/broker/mcp/structured.ts';

/** mark_fetch of a large body without an anchor: the outline text and its structured copy. */
export function fetchOutlineParts(docUrl: string, body: string): unknown {
  return [outlineData(body), outlineBody(docUrl, body)];
}

/** mark_fetch of `url#anchor`: the section, or the not-found error listing every anchor. */
export function fetchSectionParts(docUrl: string, body: string, anchor: string): unknown {
  return findSection(body, anchor) ?? sectionNotFoundText(anchor, docUrl, body);
}

/** mark_explore's card: outline and opening, links, then the structured outline, opening and links. */
export function exploreCardParts(_docUrl: string, body: string): unknown {
  return [
    outlineLines(body),
    openingParagraph(body),
    linkLines(body),
    openingParagraph(body),
    outlineData(body),
    distinctLinks(body),
  ];
}
