import { markdownBlocks, type MarkdownBlocks } from './blocks.ts';
import { distinctOf, linksOf, type AnchoredLink } from './links.ts';
import { openingOf } from './opening-paragraph.ts';
import { entriesOf, findEntry, headingsOf, sectionOf, type Heading, type OutlineEntry } from './outline.ts';

/**
 * One body read once for every view a caller takes of it: each view is
 * computed on first use from the same block scan and headings, and kept.
 * mark_fetch's outline wanted the outline twice and the opening paragraph,
 * and mark_explore's card six views; each function of this layer scanned the
 * whole body again, 0.5-1.5 s apiece on a 1 MiB document of headings
 * (docs/benchmarks.md, "Markdown on the worst 1 MiB documents"). The answers
 * are those of the functions of the same names (src/markdown/index.ts).
 */
export class MarkdownDocument {
  readonly markdown: string;
  #blocks: MarkdownBlocks | undefined;
  #lines: string[] | undefined;
  #headings: Heading[] | undefined;
  #entries: OutlineEntry[] | undefined;
  #links: AnchoredLink[] | undefined;
  #distinctLinks: Array<{ text: string; dest: string }> | undefined;
  #opening: string | undefined;

  constructor(markdown: string) {
    this.markdown = markdown;
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

  /** `outline(markdown)`. */
  get headings(): readonly Heading[] {
    this.#headings ??= headingsOf(this.blocks.blocks);
    return this.#headings;
  }

  /** `outlineEntries(markdown)`. */
  get outlineEntries(): readonly OutlineEntry[] {
    this.#entries ??= entriesOf(this.markdown, this.lines.length, this.headings);
    return this.#entries;
  }

  /** `anchoredLinks(markdown)`. */
  get links(): readonly AnchoredLink[] {
    this.#links ??= linksOf(this.blocks, this.headings).links;
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

  /** `findSection(markdown, anchor)`. */
  findSection(anchor: string): string | null {
    const entry = findEntry(this.outlineEntries, anchor);
    return entry === undefined ? null : sectionOf(this.lines, entry);
  }
}
