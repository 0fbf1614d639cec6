import { outline, sections, type Heading } from '../../protocol/outline.ts';

/**
 * The parts of a document that the org's style rules and the world descriptor
 * read: the headings (with their GitHub anchors, src/protocol/outline.ts), the
 * first block, the lead paragraph under the H1, and the list items of a
 * section. One reading of a document's shape for both, so a descriptor's
 * summary is exactly what the summary rule checks.
 */
export type DocumentShape = {
  headings: readonly Heading[];
  /** The H1 when it is the document's first block (blank lines aside), else undefined. */
  leadingH1: Heading | undefined;
  /** The paragraph right under the leading H1, as plain text on one line; '' when there is none. */
  leadParagraph: string;
  /** True when the body opens with a `---` line, i.e. a YAML frontmatter fence pasted into the body. */
  opensWithFrontmatterFence: boolean;
};

const blockStart = /^ {0,3}(#{1,6}(\s|$)|[-*+]\s|\d+[.)]\s|>|`{3,}|~{3,}|\||<)/;

export function documentShape(markdown: string): DocumentShape {
  const headings = outline(markdown);
  const lines = markdown.split('\n').map((line) => line.replace(/\r$/, ''));
  const firstLine = lines.findIndex((line) => line.trim() !== '');
  const first = headings[0];
  const leadingH1 = first !== undefined && first.level === 1 && first.line === firstLine ? first : undefined;
  return {
    headings,
    leadingH1,
    leadParagraph: leadingH1 === undefined ? '' : paragraphAfter(lines, leadingH1),
    opensWithFrontmatterFence: firstLine === 0 && /^---[ \t]*$/.test(lines[0] ?? ''),
  };
}

function paragraphAfter(lines: readonly string[], heading: Heading): string {
  // A setext H1 occupies its text line and the underline below it.
  let index = heading.line + 1;
  if (/^ {0,3}=+[ \t]*$/.test(lines[index] ?? '')) index += 1;
  while (index < lines.length && lines[index]!.trim() === '') index += 1;
  const paragraph: string[] = [];
  for (; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line.trim() === '' || (paragraph.length === 0 && blockStart.test(line))) break;
    if (paragraph.length > 0 && /^ {0,3}(#{1,6}(\s|$)|`{3,}|~{3,})/.test(line)) break;
    paragraph.push(line.trim());
  }
  return paragraph.join(' ');
}

/** The first sentence of a paragraph: up to the first `.`, `!` or `?` followed by a space or the end. */
export function firstSentence(paragraph: string): string {
  const match = /^(.*?[.!?])(?=\s|$)/u.exec(paragraph);
  return (match?.[1] ?? paragraph).trim();
}

/** The top-level list items of the section whose anchor is one of `anchors`, as plain text. */
export function sectionListItems(markdown: string, anchors: readonly string[]): string[] {
  const section = sections(markdown).find((s) => anchors.includes(s.anchor));
  if (section === undefined) return [];
  const items: string[] = [];
  for (const line of section.markdown.split('\n').slice(1)) {
    const item = /^ {0,3}(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line.replace(/\r$/, ''));
    if (item) items.push(inlineText(item[1]!));
  }
  return items;
}

/** Inline markdown reduced to its text: link labels, code spans and emphasis without their markers. */
export function inlineText(source: string): string {
  return source
    .replace(/!?\[((?:[^\]\\]|\\.)*)\]\([^)]*\)/g, '$1')
    .replace(/<((?:https?|mailto|mark):[^<>]+)>/g, '$1')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/(\*\*|__)(.+?)\1/g, '$2')
    .replace(/\\([!-/:-@[-`{-~])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}
