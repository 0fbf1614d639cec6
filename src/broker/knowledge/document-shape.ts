import { type MarkdownDocument, plainText, type Heading } from '../../markdown/index.ts';

/**
 * The parts of a document that the org's style rules and the world descriptor
 * read, from the one Markdown layer (src/markdown): the headings with their
 * GitHub anchors, whether the first block is an H1, the paragraph under it,
 * and the list items of a section. One reading for both, so a descriptor's
 * summary is exactly what the summary rule checks.
 */
export type DocumentShape = {
  headings: readonly Heading[];
  /** The H1 when it is the document's first block, else undefined. */
  leadingH1: Heading | undefined;
  /** The paragraph right under the leading H1, as plain text on one line; '' when there is none. */
  leadParagraph: string;
  /** True when the body opens with a `---` line, i.e. a YAML frontmatter fence pasted into the body. */
  opensWithFrontmatterFence: boolean;
};

export function documentShape(doc: MarkdownDocument): DocumentShape {
  const { markdown } = doc;
  const { blocks } = doc.blocks;
  const { headings } = doc;
  const [first, second] = blocks;
  const leadingH1 =
    first?.kind === 'heading' && first.level === 1 ? headings.find((h) => h.line === first.line) : undefined;
  const leadParagraph =
    leadingH1 !== undefined && second?.kind === 'paragraph'
      ? plainText(second.lines.map((line) => line.trim()).join(' '))
      : '';
  return { headings, leadingH1, leadParagraph, opensWithFrontmatterFence: /^---[ \t]*\r?(\n|$)/.test(markdown) };
}

/** The first sentence of a paragraph: up to the first `.`, `!` or `?` followed by a space or the end. */
export function firstSentence(paragraph: string): string {
  const match = /^(.*?[.!?])(?=\s|$)/u.exec(paragraph);
  return (match?.[1] ?? paragraph).trim();
}

/** The top-level list items of the section whose anchor is one of `anchors`, as plain text. */
export function sectionListItems(doc: MarkdownDocument, anchors: readonly string[]): string[] {
  const section = doc.outlineEntries.find((entry) => anchors.includes(entry.anchor));
  if (section === undefined) return [];
  const items: string[] = [];
  for (const line of doc.lines.slice(section.line + 1, section.endLine)) {
    // No `$` after `(.*)`: with a CR or U+2028 mid-line, `$` failed and the engine tried every split of
    // the spaces and the text, quadratic in the line. `.` stops at the line terminator instead.
    const item = /^ {0,3}(?:[-*+]|\d+[.)])\s+(.*)/.exec(line.replace(/\r$/, ''));
    if (item) items.push(plainText(item[1]!).trim());
  }
  return items;
}
