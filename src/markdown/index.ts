/**
 * One pure Markdown layer for the whole project: block structure, GitHub
 * heading anchors, outline and sections, links with their provenance, and the
 * opening paragraph. It imports nothing of ours; protocol, search, the world
 * and the broker read documents through it, so every reader gives one answer.
 */
export { markdownBlocks, normalizeLabel, type Block, type MarkdownBlocks } from './blocks.ts';
export { githubSlug, AnchorSlugger } from './slug.ts';
export { plainText } from './plain-text.ts';
export { NextMatch, replaceComments, replaceEach, replaceLinks, bracketLabelEnds } from './linear-replace.ts';
export {
  outline,
  outlineEntries,
  headingsOf,
  findSection,
  anchorsOf,
  type Heading,
  type OutlineEntry,
} from './outline.ts';
export { anchoredLinks, linksAndHeadings, distinctLinks, documentTitle, type AnchoredLink } from './links.ts';
export { openingParagraph } from './opening-paragraph.ts';
export { MarkdownDocument } from './document.ts';
