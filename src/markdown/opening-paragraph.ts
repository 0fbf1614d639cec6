import { markdownBlocks } from './blocks.ts';

/**
 * The first top-level paragraph as raw markdown, trimmed, or '' when there is
 * none: headings, code, lists, quotes, HTML and comments are passed over, and
 * a paragraph underlined with `===`/`---` is a heading, not a paragraph.
 */
export function openingParagraph(markdown: string): string {
  const first = markdownBlocks(markdown).blocks.find((block) => block.kind === 'paragraph');
  return first === undefined ? '' : first.lines.join('\n').trim();
}
