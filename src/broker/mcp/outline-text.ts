import { MarkdownDocument } from '../../markdown/index.ts';
import { countText } from '../count-text.ts';

/**
 * The headings a reader tool reads of one document: mark_fetch's outline and sections, mark_explore's
 * card, a resource's section. Past them a heading is only counted. Rendering and anchoring every
 * heading of a 1 MiB document of 262,000 cost about a second of the event loop per call, which any
 * reader could repeat; no document written for people comes near 10,000 (docs/decisions.md, "A
 * reader tool reads the first 10,000 headings of a document").
 */
export const outlineHeadingLimit = 10_000;

/** The bound as every tool text and schema names it: "the first 10,000". */
export const headingsReadBound = `the first ${countText(outlineHeadingLimit)}`;

/** "N more headings not read", N as the tools print counts; the one wording of the unread count. */
function headingsNotRead(unread: number): string {
  return `${countText(unread)} more headings not read`;
}

/** A body as the reader tools read it: at most `outlineHeadingLimit` headings. */
export function readerDocument(body: string): MarkdownDocument {
  return new MarkdownDocument(body, { maxHeadings: outlineHeadingLimit });
}

/** The line that says how many headings were left unread, or '' when none were. */
export function unreadHeadingsLine(doc: MarkdownDocument): string {
  const unread = doc.unreadHeadings;
  if (unread === 0) return '';
  return `+${headingsNotRead(unread)}: the outline stops at ${headingsReadBound}\n`;
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

/** At most `limit` lines, then an honest `+N more <noun>` for the rest. */
export function cappedList(lines: readonly string[], limit: number, noun: string): string {
  let out = lines
    .slice(0, limit)
    .map((line) => `${line}\n`)
    .join('');
  if (lines.length > limit) out += `+${countText(lines.length - limit)} more ${noun}\n`;
  return out;
}

/** The reference's "section not found" tool error text; past the headings read, how many were not. */
export function sectionNotFoundText(anchor: string, docUrl: string, doc: MarkdownDocument): string {
  const available = doc.anchors.join(', ');
  const unread = doc.unreadHeadings;
  const more =
    unread === 0
      ? ''
      : `; ${headingsNotRead(unread)}: sections are read among ${headingsReadBound}, force=true returns the full body`;
  return `section #${anchor} not found in ${docUrl}; available anchors: ${available === '' ? '(document has no headings)' : available}${more}`;
}
