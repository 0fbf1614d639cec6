/**
 * Markdown sectioning for body match (Go `bodymatch.go`). The structure (headings,
 * code, comments) and the anchors come from src/markdown, the same reading
 * mark_fetch's outline uses, so a search hit's `#anchor` always names a
 * section mark_fetch can cut.
 *
 * - A section's own text runs from its heading (excluded) to the next heading
 *   of any level; its trail is its heading plus every ancestor heading.
 * - Text before the first heading is a bare section with anchor '' only if any
 *   text is left after markup stripping.
 */
import { headingsOf, markdownBlocks } from '../markdown/index.ts';
import { collapse, stripInline, stripLine } from './markup.ts';

export interface MarkdownSection {
  /** GitHub-style anchor, unique in the document; '' for the bare leading section. */
  anchor: string;
  /** Plain heading text; '' for the bare section. */
  heading: string;
  /** Heading level 1-6; 0 for the bare section. */
  level: number;
  /** Ancestor headings, outermost first, then this section's own heading. */
  trail: string[];
  /** Stripped text lines, joined by '\n'. */
  text: string;
}

/** Cuts a body into sections in document order. */
export function splitSections(body: string): MarkdownSection[] {
  const { blocks } = markdownBlocks(body.replace(/\r\n?/g, '\n'));
  const anchors = new Map(headingsOf(blocks).map((heading) => [heading.line, heading.anchor]));
  const done: MarkdownSection[] = [];
  const stack: { level: number; heading: string }[] = [];
  let open = { section: bareSection(), lines: [] as string[] };
  const close = () => {
    open.section.text = open.lines.join('\n');
    // Go `bodymatch.go`: the leading bare section exists only if it has text after stripping.
    if (open.section.level > 0 || open.section.text !== '') done.push(open.section);
  };
  for (const block of blocks) {
    const anchor = block.kind === 'heading' ? anchors.get(block.line) : undefined;
    if (block.kind === 'heading' && anchor !== undefined) {
      close();
      const heading = collapse(stripInline(block.source));
      while ((stack.at(-1)?.level ?? 0) >= block.level) stack.pop();
      stack.push({ level: block.level, heading });
      const section = { anchor, heading, level: block.level, trail: stack.map((h) => h.heading), text: '' };
      open = { section, lines: [] };
    } else if (block.kind === 'code') {
      for (const line of block.lines) if (line.trim() !== '') open.lines.push(collapse(line));
    } else if (block.kind === 'paragraph' || block.kind === 'container') {
      for (const line of block.lines) {
        const text = stripLine(line);
        if (text !== '') open.lines.push(text);
      }
    }
  }
  close();
  return done;
}

function bareSection(): MarkdownSection {
  return { anchor: '', heading: '', level: 0, trail: [], text: '' };
}
