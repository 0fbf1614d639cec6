/**
 * Markdown sectioning for body match (Mark SPEC §6.4).
 *
 * - Headings are ATX (`#`..`######`, at most 3 spaces of indent) and setext
 *   (a paragraph underlined with `=` or `-`), never inside fenced code.
 * - A section's own text runs from its heading line (excluded) to the next heading
 *   of any level; its trail is its heading plus every ancestor heading.
 * - Text before the first heading is a bare section with anchor '' only if any text
 *   is left after markup stripping.
 */
import { collapse, isParagraphLine, stripInline, stripLine } from './markup.ts';
import { AnchorAllocator } from './slug.ts';

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

const fenceOpen = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const atxHeading = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;
const setextUnderline = /^ {0,3}(=+|-+)[ \t]*$/;
const thematicBreak = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;

interface OpenSection {
  section: MarkdownSection;
  lines: string[];
}

/** Cuts a body into sections in document order. */
export function splitSections(body: string): MarkdownSection[] {
  const cutter = new SectionCutter();
  for (const line of body.split(/\r\n|\n|\r/)) cutter.feed(line);
  return cutter.finish();
}

class SectionCutter {
  readonly #done: MarkdownSection[] = [];
  readonly #anchors = new AnchorAllocator();
  readonly #stack: { level: number; heading: string }[] = [];
  #open: OpenSection = { section: bareSection(), lines: [] };
  #fence: { char: string; length: number } | undefined;
  /** Where the current paragraph began in the open section's lines, or -1. */
  #paragraphStart = -1;
  #paragraphRaw: string[] = [];

  feed(line: string): void {
    if (this.#fence !== undefined) {
      this.#feedCode(line);
      return;
    }
    const fence = fenceOpen.exec(line);
    if (fence?.[1] !== undefined && !(fence[1][0] === '`' && (fence[2] ?? '').includes('`'))) {
      this.#fence = { char: fence[1][0] ?? '`', length: fence[1].length };
      this.#endParagraph();
      return;
    }
    const atx = atxHeading.exec(line);
    if (atx?.[1] !== undefined) {
      this.#startSection(atx[1].length, atxSource(atx[2] ?? ''));
      return;
    }
    const underline = setextUnderline.exec(line);
    if (underline?.[1] !== undefined && this.#paragraphStart >= 0) {
      this.#setext(underline[1][0] === '=' ? 1 : 2);
      return;
    }
    if (thematicBreak.test(line) || line.trim() === '') {
      this.#endParagraph();
      return;
    }
    this.#feedText(line);
  }

  finish(): MarkdownSection[] {
    this.#close();
    return this.#done;
  }

  #feedCode(line: string): void {
    const f = this.#fence;
    const close = f && new RegExp(`^ {0,3}${f.char === '`' ? '`' : '~'}{${f.length},}[ \\t]*$`).test(line);
    if (close) this.#fence = undefined;
    else if (line.trim() !== '') this.#open.lines.push(collapse(line));
  }

  #feedText(line: string): void {
    const paragraph = isParagraphLine(line);
    if (paragraph && this.#paragraphStart < 0) {
      this.#paragraphStart = this.#open.lines.length;
      this.#paragraphRaw = [];
    }
    if (!paragraph) this.#endParagraph();
    else this.#paragraphRaw.push(line);
    const text = stripLine(line);
    if (text !== '') this.#open.lines.push(text);
  }

  #setext(level: number): void {
    const source = this.#paragraphRaw.map((l) => l.trim()).join(' ');
    this.#open.lines.length = this.#paragraphStart;
    this.#startSection(level, source);
  }

  #endParagraph(): void {
    this.#paragraphStart = -1;
    this.#paragraphRaw = [];
  }

  /** `source` is the heading's markdown; the anchor is slugged from it, not from the plain text. */
  #startSection(level: number, source: string): void {
    const heading = collapse(stripInline(source));
    this.#close();
    while ((this.#stack.at(-1)?.level ?? 0) >= level) this.#stack.pop();
    this.#stack.push({ level, heading });
    const trail = this.#stack.map((h) => h.heading);
    const section = { anchor: this.#anchors.allocate(source), heading, level, trail, text: '' };
    this.#open = { section, lines: [] };
  }

  #close(): void {
    this.#endParagraph();
    const { section, lines } = this.#open;
    section.text = lines.join('\n');
    // §6.4: the leading bare section exists only if it has text after stripping.
    if (section.level > 0 || section.text !== '') this.#done.push(section);
  }
}

function bareSection(): MarkdownSection {
  return { anchor: '', heading: '', level: 0, trail: [], text: '' };
}

/** ATX heading content without its optional closing `#` run. */
function atxSource(raw: string): string {
  return /^#+$/.test(raw.trim()) ? '' : raw.replace(/[ \t]+#+[ \t]*$/, '').trim();
}
