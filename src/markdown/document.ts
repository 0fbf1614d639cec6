import { markdownBlocks, type MarkdownBlocks } from './blocks.ts';
import { distinctOf, linksOf, type AnchoredLink } from './links.ts';
import { openingOf } from './opening-paragraph.ts';
import {
  entriesOf,
  findEntry,
  readHeadings,
  sectionOf,
  type Heading,
  type OutlineEntry,
  type UnreadHeadings,
} from './outline.ts';

/**
 * One body read once for every view a caller takes of it: each view is
 * computed on first use from the same block scan and headings, and kept.
 * mark_fetch's outline wanted the outline twice and the opening paragraph,
 * and mark_explore's card six views; each function of this layer scanned the
 * whole body again, 0.5-1.5 s apiece on a 1 MiB document of headings
 * (docs/benchmarks.md, "Markdown on the worst 1 MiB documents"). The answers
 * are those of the functions of the same names (src/markdown/index.ts).
 *
 * With `maxHeadings`, only the first that many headings are read (rendered,
 * anchored, outlined, their sections cut); the rest are counted in
 * `unreadHeadings` and still end the sections of those read. A document with
 * no more headings than that gets the answers of the functions, exactly.
 */
export class MarkdownDocument {
  readonly markdown: string;
  readonly #maxHeadings: number;
  #blocks: MarkdownBlocks | undefined;
  #lines: string[] | undefined;
  #headings: Heading[] | undefined;
  #unread: UnreadHeadings | undefined;
  #entries: OutlineEntry[] | undefined;
  #links: AnchoredLink[] | undefined;
  #distinctLinks: Array<{ text: string; dest: string }> | undefined;
  #opening: string | undefined;

  constructor(markdown: string, options: { maxHeadings?: number } = {}) {
    this.markdown = markdown;
    this.#maxHeadings = options.maxHeadings ?? Number.POSITIVE_INFINITY;
  }

  get blocks(): MarkdownBlocks {
    this.#blocks ??= markdownBlocks(this.markdown);
    return this.#blocks;
  }

  /** `markdown.split('\n')`: the lines sections are cut from. */
  get lines(): readonly string[] {
    this.#lines ??= this.markdown.split('\n');
    return this.#lines;
  }

  /** `outline(markdown)`, up to `maxHeadings` headings. */
  get headings(): readonly Heading[] {
    this.#read();
    return this.#headings!;
  }

  /** The headings past `maxHeadings`, not read: 0 for a document within the bound. */
  get unreadHeadings(): number {
    this.#read();
    return this.#unread!.count;
  }

  /** `outlineEntries(markdown)`, up to `maxHeadings` entries. */
  get outlineEntries(): readonly OutlineEntry[] {
    this.#read();
    this.#entries ??= entriesOf(this.markdown, this.lines.length, this.headings, this.#unread);
    return this.#entries;
  }

  /** `anchoredLinks(markdown)`; past the first unread heading a link has no anchor (''). */
  get links(): readonly AnchoredLink[] {
    this.#links ??= linksOf(this.blocks, this.#linkHeadings()).links;
    return this.#links;
  }

  /** `distinctLinks(markdown)`. */
  get distinctLinks(): ReadonlyArray<{ text: string; dest: string }> {
    this.#distinctLinks ??= distinctOf(this.links);
    return this.#distinctLinks;
  }

  /** `openingParagraph(markdown)`. */
  get openingParagraph(): string {
    this.#opening ??= openingOf(this.blocks.blocks);
    return this.#opening;
  }

  /** `anchorsOf(markdown)`. */
  get anchors(): string[] {
    return this.headings.map((heading) => heading.anchor);
  }

  /** `findSection(markdown, anchor)`, among the headings read. */
  findSection(anchor: string): string | null {
    const entry = findEntry(this.outlineEntries, anchor);
    return entry === undefined ? null : sectionOf(this.lines, entry);
  }

  #read(): void {
    if (this.#headings !== undefined) return;
    const { headings, unread } = readHeadings(this.blocks.blocks, this.#maxHeadings);
    this.#headings = headings;
    this.#unread = unread;
  }

  /** The headings read, then an anchorless one where the unread start: no link takes an anchor from beyond the bound. */
  #linkHeadings(): readonly Heading[] {
    const headings = this.headings;
    const firstUnread = this.#unread!.firstAtOrAbove[6];
    if (firstUnread === undefined) return headings;
    return [...headings, { level: 1, text: '', anchor: '', line: firstUnread }];
  }
}
