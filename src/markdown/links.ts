import { markdownBlocks, type Block, type MarkdownBlocks } from './blocks.ts';
import { BlockScanner, CodeSpanFinder, skipAngle } from './inline-scan.ts';
import { NextMatch } from './linear-replace.ts';
import { headingsOf, type Heading } from './outline.ts';
import { plainText } from './plain-text.ts';

/**
 * Links of a markdown body with their provenance (mdoutline.AnchoredLinks):
 * inline and reference links (CommonMark §6.3), never images, autolinks or
 * anything inside code. Empty and fragment-only destinations are skipped, a
 * destination's fragment is cut, the label is the link's plain text, and the
 * anchor is that of the innermost heading at or above the link.
 *
 * One pass per block; openers are deactivated with a watermark, code-span
 * closers are found through per-length queues and the search for a comment's
 * `-->` is remembered, so hostile input (thousands of `[`, backticks or
 * `<!--`) stays linear.
 */
export type AnchoredLink = { dest: string; label: string; anchor: string };

type RawLink = { dest: string; labelSource: string; line: number };

export function anchoredLinks(markdown: string): AnchoredLink[] {
  return linksAndHeadings(markdown).links;
}

/**
 * One scan of the document for both its links and its headings (the link graph
 * needs both). With `maxLinks`, the scan stops after that many link
 * occurrences, the empty and fragment-only ones it skips included, and `cut`
 * says it stopped before the end: a 1 MiB paragraph of links held the event
 * loop for about a second (test/security/graph-memory.test.ts). Counting only
 * the links kept let a block's skipped links end its scan early, and the links
 * after them were lost with `cut` false (test/markdown/links.test.ts).
 */
export function linksAndHeadings(
  markdown: string,
  maxLinks: number = Number.POSITIVE_INFINITY,
): { links: AnchoredLink[]; headings: Heading[]; cut: boolean } {
  const parsed = markdownBlocks(markdown);
  const headings = headingsOf(parsed.blocks);
  return { ...linksOf(parsed, headings, maxLinks), headings };
}

/** `linksAndHeadings` of already scanned blocks and their headings (`headingsOf`). */
export function linksOf(
  { blocks: all, definitions }: MarkdownBlocks,
  headings: readonly Heading[],
  maxLinks: number = Number.POSITIVE_INFINITY,
): { links: AnchoredLink[]; cut: boolean } {
  const links: AnchoredLink[] = [];
  let h = -1;
  let maxDefinedLabel = 0;
  for (const label of definitions.keys()) maxDefinedLabel = Math.max(maxDefinedLabel, label.length);
  let scanned = 0;
  for (const block of all) {
    if (!hasInlineText(block)) continue;
    if (scanned >= maxLinks) break;
    // Joined one block at a time: a scan cut short by `maxLinks` never joins the blocks after it.
    const text = { line: block.line, text: block.lines.join('\n') };
    const found = blockLinks(text, definitions, maxDefinedLabel, maxLinks - scanned);
    scanned += found.length;
    for (const link of found) {
      while (h + 1 < headings.length && headings[h + 1]!.line <= link.line) h++;
      const dest = cutFragment(link.dest);
      if (dest === null) continue;
      links.push({ dest, label: plainText(link.labelSource), anchor: h < 0 ? '' : headings[h]!.anchor });
    }
  }
  // Exactly `maxLinks` occurrences may have been all there was; in doubt, say cut.
  return { links, cut: scanned >= maxLinks };
}

/**
 * The document's outbound links for a reader (mark_explore's card): each
 * destination once, in document order, with the text of its first link.
 */
export function distinctLinks(markdown: string): Array<{ text: string; dest: string }> {
  return distinctOf(anchoredLinks(markdown));
}

/** `distinctLinks` of already found links. */
export function distinctOf(links: readonly AnchoredLink[]): Array<{ text: string; dest: string }> {
  const seen = new Set<string>();
  const out: Array<{ text: string; dest: string }> = [];
  for (const link of links) {
    if (seen.has(link.dest)) continue;
    seen.add(link.dest);
    out.push({ text: link.label, dest: link.dest });
  }
  return out;
}

/** The text of the first level-1 heading (links.ExtractTitle), "" when there is none. */
export function documentTitle(headings: readonly Heading[]): string {
  return headings.find((heading) => heading.level === 1)?.text ?? '';
}

type TextBlock = { line: number; text: string };

/** Code, comments and breaks hold no links. */
function hasInlineText(block: Block): boolean {
  return block.kind === 'paragraph' || block.kind === 'container' || block.kind === 'heading';
}

function cutFragment(dest: string): string | null {
  if (dest === '' || dest.startsWith('#')) return null;
  const hash = dest.indexOf('#');
  return hash < 0 ? dest : dest.slice(0, hash);
}

type Opener = { pos: number; image: boolean };

/** The block's first `room` links (destinations not yet cleaned). */
function blockLinks(
  block: TextBlock,
  definitions: ReadonlyMap<string, string>,
  maxDefinedLabel: number,
  room: number,
): RawLink[] {
  const s = block.text;
  const found: Array<{ dest: string; labelSource: string; pos: number }> = [];
  const openers: Opener[] = [];
  const codeSpans = new CodeSpanFinder(s);
  const scanner = new BlockScanner(s, definitions, maxDefinedLabel);
  const commentEnds = new NextMatch(s, '-->');
  let inactiveBelow = 0;
  let i = 0;
  while (i < s.length && !scanner.exhausted && found.length < room) {
    // Jump over prose to the next character that can matter.
    special.lastIndex = i;
    if (special.exec(s) === null) break;
    i = special.lastIndex - 1;
    const c = s[i]!;
    if (c === '\\') i += 2;
    else if (c === '`') i = codeSpans.skip(i);
    else if (c === '<') i = skipAngle(s, i, commentEnds);
    else if (c === '!' && s[i + 1] === '[') {
      openers.push({ pos: i + 1, image: true });
      i += 2;
    } else if (c === '[') {
      openers.push({ pos: i, image: false });
      i++;
    } else if (c === ']') {
      const inactive = openers.length - 1 < inactiveBelow;
      const opener = openers.pop();
      inactiveBelow = Math.min(inactiveBelow, openers.length);
      const target = opener === undefined || inactive ? null : scanner.target(opener.pos + 1, i);
      if (opener === undefined || target === null) {
        i++;
        continue;
      }
      if (!opener.image) {
        found.push({
          dest: target.dest,
          labelSource: s.slice(opener.pos + 1, Math.min(i, opener.pos + 1 + maxLabelSourceChars)),
          pos: opener.pos,
        });
        // CommonMark §6.3: links may not contain other links; earlier openers go inactive.
        inactiveBelow = openers.length;
      }
      i = target.end;
    } else i++;
  }
  return withLines(block, found);
}

const special = /[\\`<![\]]/g;

/** Labels longer than this are cut before conversion to plain text. */
const maxLabelSourceChars = 2048;

/**
 * Line numbers for links in increasing position order, in one sweep. The next
 * newline is remembered: searching for it again from the last one passed, for
 * every link on a long line, read the rest of that line once per link.
 */
function withLines(block: TextBlock, found: Array<{ dest: string; labelSource: string; pos: number }>): RawLink[] {
  let line = block.line;
  let nl = block.text.indexOf('\n');
  return found.map((link) => {
    while (nl >= 0 && nl < link.pos) {
      line++;
      nl = block.text.indexOf('\n', nl + 1);
    }
    return { dest: link.dest, labelSource: link.labelSource, line };
  });
}
