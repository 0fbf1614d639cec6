import { markdownBlocks, type Block } from './blocks.ts';
import { plainText } from './plain-text.ts';
import { AnchorSlugger, githubSlug } from './slug.ts';

/**
 * A document's outline: its headings with GitHub anchors, and the section each
 * one opens. A `#anchor` in a `mark://` URL names one of these sections (Mark
 * SPEC: fragments select a section on the client side and are never sent), so
 * mark_fetch, the search index, mark_explore and the link graph all take their
 * anchors from here. A heading with no text (`#` alone) is not counted: it gets
 * no anchor and ends no section.
 */
export type Heading = {
  level: number;
  /** The heading's rendered text (links keep their text; markers, tags and escapes are gone). */
  text: string;
  anchor: string;
  /** Zero-based line of the heading (the first text line of a setext heading). */
  line: number;
};

/** A heading with the span of its section: up to the next heading of the same or a higher level. */
export type OutlineEntry = Heading & {
  /** The line after the section's last line. */
  endLine: number;
  /** Lines in the section, a last line without LF counted, trailing blank lines included. */
  lineCount: number;
};

export function outline(markdown: string): Heading[] {
  return headingsOf(markdownBlocks(markdown).blocks);
}

/** The anchored headings among already scanned blocks, in document order. */
export function headingsOf(blocks: readonly Block[]): Heading[] {
  return readHeadings(blocks, Number.POSITIVE_INFINITY).headings;
}

/**
 * What `readHeadings` knows of the headings after its bound without reading them: how many there
 * are, and where the first of them at each level or above stands, for the sections of the headings
 * read. They are judged by their source alone (no text rendered, no anchor made): one whose markup
 * renders to nothing, such as `# <b></b>`, is counted and ends a section, where a heading read would
 * not be (docs/decisions.md, "A reader tool reads the first 10,000 headings of a document").
 */
export type UnreadHeadings = {
  count: number;
  /** Index: a level 1-6; the line of the first unread heading of that level or a higher one (a lower number). */
  firstAtOrAbove: ReadonlyArray<number | undefined>;
};

/**
 * The anchored headings among the first `maxHeadings` heading blocks with any source, and a count of
 * the rest. Rendering and anchoring each heading is what a document of 262,000 headings cost most
 * (docs/benchmarks.md, "Markdown bounded per call"): past the bound a heading costs a comparison.
 */
export function readHeadings(
  blocks: readonly Block[],
  maxHeadings: number,
): { headings: Heading[]; unread: UnreadHeadings } {
  const slugger = new AnchorSlugger();
  const headings: Heading[] = [];
  const firstAtOrAbove: Array<number | undefined> = [];
  let read = 0;
  let count = 0;
  for (const block of blocks) {
    if (block.kind !== 'heading' || block.source === '') continue;
    if (read >= maxHeadings) {
      count++;
      for (let level = block.level; level <= 6; level++) firstAtOrAbove[level] ??= block.line;
      continue;
    }
    read++;
    const text = plainText(block.source);
    if (text === '') continue;
    headings.push({ level: block.level, text, anchor: slugger.slug(text), line: block.line });
  }
  return { headings, unread: { count, firstAtOrAbove } };
}

export function outlineEntries(markdown: string): OutlineEntry[] {
  return entriesOf(markdown, markdown.split('\n').length, outline(markdown));
}

/**
 * Outline entries from a document's headings: `lineCount` is the length of `markdown.split('\n')`.
 * With `unread`, the headings after `found` that were not read still end the sections of `found`.
 */
export function entriesOf(
  markdown: string,
  lineCount: number,
  found: readonly Heading[],
  unread?: UnreadHeadings,
): OutlineEntry[] {
  const ends = sectionEnds(found, lineCount, unread);
  // Splitting "a\n" gives ["a", ""]: the empty tail is not a line of its own.
  const emptyTail = markdown.endsWith('\n') ? 1 : 0;
  return found.map((heading, i) => {
    const endLine = ends[i]!;
    return { ...heading, endLine, lineCount: endLine - heading.line - (endLine === lineCount ? emptyTail : 0) };
  });
}

/**
 * Each heading's section end: the line of the next heading of the same or a higher level, else
 * `lineCount`. One pass, with the headings still waiting for their end on a stack (levels strictly
 * grow towards its top): searching the rest of the list per heading was quadratic in their number.
 */
function sectionEnds(headings: readonly Heading[], lineCount: number, unread?: UnreadHeadings): number[] {
  const ends = new Array<number>(headings.length);
  const open: number[] = [];
  headings.forEach((heading, i) => {
    while (open.length > 0 && headings[open.at(-1)!]!.level >= heading.level) ends[open.pop()!] = heading.line;
    open.push(i);
  });
  for (const i of open) ends[i] = unread?.firstAtOrAbove[headings[i]!.level] ?? lineCount;
  return ends;
}

/** The exact text of a section, byte for byte, from the document's lines (`markdown.split('\n')`): its lines as they were, with the line break that ends it. */
export function sectionOf(lines: readonly string[], entry: OutlineEntry): string {
  const text = lines.slice(entry.line, entry.endLine).join('\n');
  return entry.endLine < lines.length ? `${text}\n` : text;
}

/**
 * The section an anchor names: a case-insensitive anchor match first, then
 * the argument slugged, so a caller may pass the heading text itself
 * ("Problem Statement") instead of its slug. A leading `#` is optional.
 */
export function findSection(markdown: string, anchor: string): string | null {
  const lines = markdown.split('\n');
  const match = findEntry(entriesOf(markdown, lines.length, outline(markdown)), anchor);
  return match === undefined ? null : sectionOf(lines, match);
}

/** The entry `findSection` cuts for `anchor`. */
export function findEntry(entries: readonly OutlineEntry[], anchor: string): OutlineEntry | undefined {
  const wanted = anchor.trim().replace(/^#/, '');
  // Both forms once, not once per entry: a miss reads every entry of a document of 200,000 headings.
  const lower = wanted.toLowerCase();
  const exact = entries.find((entry) => entry.anchor.toLowerCase() === lower);
  if (exact !== undefined) return exact;
  const slugged = githubSlug(wanted);
  return entries.find((entry) => entry.anchor === slugged);
}

export function anchorsOf(markdown: string): string[] {
  return outline(markdown).map((heading) => heading.anchor);
}
