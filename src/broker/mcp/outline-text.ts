import { MarkdownDocument } from '../../markdown/index.ts';

/**
 * The headings a reader tool reads of one document: mark_fetch's outline and sections, mark_explore's
 * card, a resource's section. Past them a heading is only counted. Rendering and anchoring every
 * heading of a 1 MiB document of 262,000 cost about a second of the event loop per call, which any
 * reader could repeat; no document written for people comes near 10,000 (docs/decisions.md, "A
 * reader tool reads the first 10,000 headings of a document").
 */
export const outlineHeadingLimit = 10_000;

/** A body as the reader tools read it: at most `outlineHeadingLimit` headings. */
export function readerDocument(body: string): MarkdownDocument {
  return new MarkdownDocument(body, { maxHeadings: outlineHeadingLimit });
}

/** The line that says how many headings were left unread, or '' when none were. */
export function unreadHeadingsLine(doc: MarkdownDocument): string {
  const unread = doc.unreadHeadings;
  if (unread === 0) return '';
  return `+${unread.toLocaleString('en')} more headings not read: the outline stops at the first ${outlineHeadingLimit.toLocaleString('en')}\n`;
}

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
  out += unreadHeadingsLine(doc);
  const opening = doc.openingParagraph;
  if (opening !== '') out += `\n${opening}\n`;
  return `${out}\nfetch ${docUrl}#<anchor> for a section; force=true for the full body\n`;
}

/** Each outbound link once, in document order, as `- [text](dest)`, or `- dest` when the text is empty. */
export function linkLines(doc: MarkdownDocument): string[] {
  return doc.distinctLinks.map((link) => (link.text === '' ? `- ${link.dest}` : `- [${link.text}](${link.dest})`));
}

/** At most `limit` lines, then an honest `+N more <noun>` for the rest, `total` of them in all (default: the lines). */
export function cappedList(lines: readonly string[], limit: number, noun: string, total = lines.length): string {
  let out = lines
    .slice(0, limit)
    .map((line) => `${line}\n`)
    .join('');
  if (total > limit) out += `+${total - limit} more ${noun}\n`;
  return out;
}

/** The reference's "section not found" tool error text; past the headings read, how many were not. */
export function sectionNotFoundText(anchor: string, docUrl: string, doc: MarkdownDocument): string {
  const available = doc.anchors.join(', ');
  const unread = doc.unreadHeadings;
  const more =
    unread === 0
      ? ''
      : `; ${unread.toLocaleString('en')} more headings not read: sections are read among the first ${outlineHeadingLimit.toLocaleString('en')}, force=true returns the full body`;
  return `section #${anchor} not found in ${docUrl}; available anchors: ${available === '' ? '(document has no headings)' : available}${more}`;
}
