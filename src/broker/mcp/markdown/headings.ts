import { anchorSlug, outline } from '../../../protocol/outline.ts';

/**
 * Headings with the span of the section each opens, as the reference's
 * mdoutline package reports them: a section runs from its heading line to the
 * next heading of the same or a higher level, byte for byte (trailing blank
 * lines included); empty headings (`#` alone) neither count nor end sections.
 */
export type DocHeading = {
  level: number;
  /** Heading text without inline markup, as the outline shows it. */
  text: string;
  anchor: string;
  /** Zero-based line where the section starts, and the line after its end. */
  startLine: number;
  endLine: number;
  /** Lines in the section, a last line without LF counted. */
  lineCount: number;
};

export function documentHeadings(markdown: string): DocHeading[] {
  const lines = markdown.split('\n');
  const found = outline(markdown).filter((heading) => heading.text !== '');
  return found.map((heading, i) => {
    const next = found.slice(i + 1).find((candidate) => candidate.level <= heading.level);
    const endLine = next?.line ?? lines.length;
    // Splitting "a\n" gives ["a", ""]: the empty tail is not a line of its own.
    const tailIsEmpty = endLine === lines.length && markdown.endsWith('\n');
    return {
      level: heading.level,
      text: plainHeadingText(heading.text),
      anchor: heading.anchor,
      startLine: heading.line,
      endLine,
      lineCount: endLine - heading.line - (tailIsEmpty ? 1 : 0),
    };
  });
}

/** The exact text of a section: its lines joined as they were, with the line break that ends it. */
export function sectionText(markdown: string, heading: DocHeading): string {
  const lines = markdown.split('\n');
  const text = lines.slice(heading.startLine, heading.endLine).join('\n');
  return heading.endLine < lines.length ? `${text}\n` : text;
}

/**
 * The section an anchor names: a case-insensitive anchor match first, then
 * the argument slugged, so an agent may pass the heading text itself
 * ("Problem Statement") instead of its slug. A leading `#` is optional.
 */
export function findSection(markdown: string, anchor: string): string | null {
  const wanted = anchor.trim().replace(/^#/, '');
  const headings = documentHeadings(markdown);
  const exact = headings.find((heading) => heading.anchor.toLowerCase() === wanted.toLowerCase());
  const match = exact ?? headings.find((heading) => heading.anchor === anchorSlug(wanted));
  return match === undefined ? null : sectionText(markdown, match);
}

export function anchorsOf(markdown: string): string[] {
  return documentHeadings(markdown).map((heading) => heading.anchor);
}

/** The reference's "section not found" tool error text. */
export function sectionNotFoundText(anchor: string, docUrl: string, markdown: string): string {
  const available = anchorsOf(markdown).join(', ');
  return `section #${anchor} not found in ${docUrl}; available anchors: ${available === '' ? '(document has no headings)' : available}`;
}

/** Rendered text of a heading: link and image text kept, code ticks, emphasis markers and HTML tags dropped. */
function plainHeadingText(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<\/?[A-Za-z][^>]*>/g, '')
    .replace(/`+/g, '')
    .replace(/\*+/g, '')
    .replace(/(^|[^\p{L}\p{N}])_+(?=\S)/gu, '$1')
    .replace(/(\S)_+(?=[^\p{L}\p{N}]|$)/gu, '$1')
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .trim();
}
