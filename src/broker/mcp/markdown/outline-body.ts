import { documentHeadings } from './headings.ts';

/**
 * What mark_fetch returns instead of a large body, and what mark_explore's card
 * is made of (reference mdoutline.OutlineBody / Outline / OpeningParagraph /
 * CappedList): the heading tree with anchors and section sizes, the opening
 * paragraph, and a hint on how to read more.
 */
export function outlineLines(markdown: string): string[] {
  return documentHeadings(markdown).map(
    (heading) => `${'  '.repeat(heading.level - 1)}- ${heading.text} (#${heading.anchor}, ${heading.lineCount} lines)`,
  );
}

export function outlineBody(docUrl: string, markdown: string): string {
  const lines = outlineLines(markdown);
  let out = lines.length === 0 ? '(document has no headings)\n' : lines.map((line) => `${line}\n`).join('');
  const opening = openingParagraph(markdown);
  if (opening !== '') out += `\n${opening}\n`;
  return `${out}\nfetch ${docUrl}#<anchor> for a section; force=true for the full body\n`;
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

const fenceOpen = /^ {0,3}(`{3,}|~{3,})/;
const atxHeading = /^ {0,3}#{1,6}([ \t]|$)/;
const thematicBreak = /^ {0,3}([-*_])([ \t]*\1){2,}[ \t]*$/;
const setextUnderline = /^ {0,3}(=+|-+)[ \t]*$/;
const containerStart = /^ {0,3}(>|[-+*][ \t]|\d{1,9}[.)][ \t]|<[A-Za-z!/?])/;
/** CommonMark: only these may cut a paragraph short (an ordered list must start at 1). */
const interrupts = /^ {0,3}(>|[-+*][ \t]+\S|1[.)][ \t]+\S|<[A-Za-z!/?])/;

/**
 * The first top-level paragraph as raw markdown, trimmed, or '' when there is
 * none. Headings, code, lists, quotes and HTML blocks are passed over; a
 * paragraph underlined with `===`/`---` is a heading, not a paragraph.
 */
export function openingParagraph(markdown: string): string {
  const lines = markdown.split('\n').map((line) => line.replace(/\r$/, ''));
  let paragraph: string[] = [];
  let skipping: 'fence' | 'container' | null = null;
  let fence = '';
  for (const line of lines) {
    const blank = line.trim() === '';
    if (skipping === 'fence') {
      if (new RegExp(`^ {0,3}${fence[0] === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`).test(line)) skipping = null;
      continue;
    }
    if (skipping === 'container') {
      if (blank) skipping = null;
      continue;
    }
    if (paragraph.length > 0) {
      if (blank || atxHeading.test(line) || fenceOpen.test(line) || interrupts.test(line))
        return paragraph.join('\n').trim();
      if (setextUnderline.test(line)) {
        paragraph = [];
        continue;
      }
      if (thematicBreak.test(line)) return paragraph.join('\n').trim();
      paragraph.push(line);
      continue;
    }
    if (blank || atxHeading.test(line) || thematicBreak.test(line) || /^( {4}|\t)/.test(line)) continue;
    const open = fenceOpen.exec(line);
    if (open) {
      fence = open[1]!;
      skipping = 'fence';
      continue;
    }
    if (containerStart.test(line)) {
      skipping = 'container';
      continue;
    }
    paragraph.push(line);
  }
  return paragraph.join('\n').trim();
}
