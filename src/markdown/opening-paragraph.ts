import { markdownBlocks, type Block } from './blocks.ts';

/**
 * The first top-level paragraph as raw markdown, trimmed, or '' when there is
 * none: headings, code, lists, quotes, HTML and comments are passed over, and
 * a paragraph underlined with `===`/`---` is a heading, not a paragraph.
 */
export function openingParagraph(markdown: string): string {
  return openingOf(markdownBlocks(markdown).blocks);
}

/** `openingParagraph` of already scanned blocks. */
export function openingOf(blocks: readonly Block[]): string {
  const first = blocks.find((block) => block.kind === 'paragraph');
  return first === undefined ? '' : first.lines.join('\n').trim();
}
