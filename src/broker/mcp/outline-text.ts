import type { MarkdownDocument } from '../../markdown/index.ts';

/**
 * What mark_fetch returns instead of a large body, and what mark_explore's card
 * is made of (reference mdoutline.OutlineBody / Outline / LinkLines /
 * CappedList): the heading tree with anchors and section sizes, the opening
 * paragraph, the outbound links, and a hint on how to read more. The markdown
 * itself is read by src/markdown.
 */
export function outlineLines(doc: MarkdownDocument): string[] {
  return doc.outlineEntries.map(
    (heading) => `${'  '.repeat(heading.level - 1)}- ${heading.text} (#${heading.anchor}, ${heading.lineCount} lines)`,
  );
}

export function outlineBody(docUrl: string, doc: MarkdownDocument): string {
  const lines = outlineLines(doc);
  let out = lines.length === 0 ? '(document has no headings)\n' : lines.map((line) => `${line}\n`).join('');
  const opening = doc.openingParagraph;
  if (opening !== '') out += `\n${opening}\n`;
  return `${out}\nfetch ${docUrl}#<anchor> for a section; force=true for the full body\n`;
}

/** Each outbound link once, in document order, as `- [text](dest)`, or `- dest` when the text is empty. */
export function linkLines(doc: MarkdownDocument): string[] {
  return doc.distinctLinks.map((link) => (link.text === '' ? `- ${link.dest}` : `- [${link.text}](${link.dest})`));
}

/** At most `limit` lines, then an honest `+N more <noun>` for the rest. */
export function cappedList(lines: readonly string[], limit: number, noun: string): string {
  let out = lines
    .slice(0, limit)
    .map((line) => `${line}\n`)
    .join('');
  if (lines.length > limit) out += `+${lines.length - limit} more ${noun}\n`;
  return out;
}

/** The reference's "section not found" tool error text. */
export function sectionNotFoundText(anchor: string, docUrl: string, doc: MarkdownDocument): string {
  const available = doc.anchors.join(', ');
  return `section #${anchor} not found in ${docUrl}; available anchors: ${available === '' ? '(document has no headings)' : available}`;
}
