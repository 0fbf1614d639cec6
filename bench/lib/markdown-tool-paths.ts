/**
 * The markdown work of the broker tools that parse a body, in the order the
 * tools do it and through the functions they call (src/broker/mcp/tools/fetch.ts,
 * src/broker/mcp/tools/explore.ts), without the world request around it:
 * what bench/markdown-worst.ts times per call. Each call reads its body once
 * (`readerDocument`: at most `outlineHeadingLimit` headings read), as each tool call does.
 */
import {
  linkLines,
  outlineBody,
  outlineLines,
  readerDocument,
  sectionNotFoundText,
} from '../../src/broker/mcp/outline-text.ts';
import { outlineData } from '../../src/broker/mcp/structured.ts';

/** mark_fetch of a large body without an anchor: the outline text and its structured copy. */
export function fetchOutlineParts(docUrl: string, body: string): unknown {
  const doc = readerDocument(body);
  return [outlineData(doc), outlineBody(docUrl, doc)];
}

/** mark_fetch of `url#anchor`: the section, or the not-found error listing every anchor. */
export function fetchSectionParts(docUrl: string, body: string, anchor: string): unknown {
  const doc = readerDocument(body);
  return doc.findSection(anchor) ?? sectionNotFoundText(anchor, docUrl, doc);
}

/** mark_explore's card: outline and opening, links, then the structured outline, opening and links. */
export function exploreCardParts(_docUrl: string, body: string): unknown {
  const doc = readerDocument(body);
  return [
    outlineLines(doc),
    doc.openingParagraph,
    linkLines(doc),
    doc.openingParagraph,
    outlineData(doc),
    doc.distinctLinks,
  ];
}
