/**
 * The block structure of a markdown document, line based and linear in its
 * size (CommonMark §4-§5, the parts every reader here needs): ATX and setext
 * headings, paragraphs, container runs (list items, block quotes, HTML tags,
 * up to the next blank line), fenced and indented code, HTML comments,
 * thematic breaks, and the link reference definitions (§4.7), which apply to
 * the whole document. Headings inside containers are not headings here.
 */

export type Block =
  /** `source` is the heading's inline markdown ('' for a bare `#`); `line` its (first) text line. */
  | { kind: 'heading'; level: number; source: string; line: number; lines: string[] }
  | { kind: 'paragraph' | 'container' | 'code' | 'comment'; line: number; lines: string[] }
  | { kind: 'break'; line: number; lines: string[] };

export type MarkdownBlocks = {
  blocks: Block[];
  /** Normalized label → destination; the first definition of a label wins. */
  definitions: ReadonlyMap<string, string>;
};

const fenceOpen = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const atxHeading = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?[ \t]*$/;
const setextUnderline = /^ {0,3}(=+|-+)[ \t]*$/;
const thematicBreak = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const listItem = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const containerStart = /^ {0,3}(?:>|(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)|<[A-Za-z/?])/;
/** What may cut a paragraph short (§5.2: an ordered list only when it starts at 1, never empty). */
const interruptsParagraph = /^ {0,3}(?:>|[-+*][ \t]+\S|1[.)][ \t]+\S|<[A-Za-z/?])/;
const indented = /^(?: {4}|\t)/;
const definition =
  /^ {0,3}\[((?:[^\\\]]|\\.){1,999})\]:[ \t]*(<[^<>\n]*>|\S+)(?:[ \t]+(?:"[^"]*"|'[^']*'|\([^)]*\)))?[ \t]*$/;

type Fence = { char: string; length: number };

export function markdownBlocks(markdown: string): MarkdownBlocks {
  return new BlockScanner().scan(markdown);
}

class BlockScanner {
  readonly #blocks: Block[] = [];
  readonly #definitions = new Map<string, string>();
  #current: Block | null = null;
  #fence: Fence | null = null;
  #inComment = false;
  #previousBlank = true;
  #inList = false;

  scan(markdown: string): MarkdownBlocks {
    markdown.split('\n').forEach((raw, index) => {
      this.#line(raw.endsWith('\r') ? raw.slice(0, -1) : raw, index);
    });
    this.#flush();
    return { blocks: this.#blocks, definitions: this.#definitions };
  }

  #line(line: string, index: number): void {
    if (this.#fence !== null || this.#inComment) {
      this.#inside(line);
      return;
    }
    const blank = line.trim() === '';
    // An indented line is code unless it continues a paragraph or a list item.
    if (!blank && indented.test(line) && !this.#continues() && !this.#inList) {
      this.#code(line, index);
      return;
    }
    if (this.#current?.kind === 'code' && !blank) this.#flush();
    if (blank) {
      this.#blank(line);
      return;
    }
    const wasBlank = this.#previousBlank;
    this.#previousBlank = false;
    if (listItem.test(line)) this.#inList = true;
    else if (!indented.test(line) && wasBlank) this.#inList = false;
    const fence = fenceOpen.exec(line);
    if (fence && !(fence[1]![0] === '`' && fence[2]!.includes('`'))) {
      this.#start({ kind: 'code', line: index + 1, lines: [] }, line);
      this.#fence = { char: fence[1]![0]!, length: fence[1]!.length };
      return;
    }
    if (/^ {0,3}<!--/.test(line)) {
      this.#start({ kind: 'comment', line: index, lines: [line] }, line);
      this.#inComment = !line.includes('-->', line.indexOf('<!--') + 4);
      if (!this.#inComment) this.#flush();
      return;
    }
    const atx = atxHeading.exec(line);
    if (atx) {
      this.#start(
        { kind: 'heading', level: atx[1]!.length, source: atxSource(atx[2] ?? ''), line: index, lines: [line] },
        line,
      );
      this.#flush();
      return;
    }
    const underline = setextUnderline.exec(line);
    if (underline && this.#current?.kind === 'paragraph' && !this.#current.lines.some((l) => /^[ \t]*\|/.test(l))) {
      const { line: first, lines } = this.#current;
      const source = lines.map((l) => l.trim()).join(' ');
      this.#current = { kind: 'heading', level: underline[1]![0] === '=' ? 1 : 2, source, line: first, lines };
      this.#flush();
      return;
    }
    if (thematicBreak.test(line)) {
      this.#start({ kind: 'break', line: index, lines: [line] }, line);
      this.#flush();
      return;
    }
    const def = this.#current === null ? definition.exec(line) : null;
    if (def) {
      const label = normalizeLabel(def[1]!);
      if (label !== '' && !this.#definitions.has(label)) this.#definitions.set(label, unwrapDestination(def[2]!));
      return;
    }
    this.#text(line, index);
  }

  #text(line: string, index: number): void {
    const current = this.#current;
    // A container run takes every line up to the next blank one (lazy continuation, §5.1).
    if (current?.kind === 'container' || (current?.kind === 'paragraph' && !interruptsParagraph.test(line))) {
      current.lines.push(line);
      return;
    }
    this.#flush();
    // After a blank line, an indented line inside a list continues its item.
    const container = containerStart.test(line) || (this.#inList && /^[ \t]/.test(line));
    this.#current = { kind: container ? 'container' : 'paragraph', line: index, lines: [line] };
  }

  #inside(line: string): void {
    const current = this.#current!;
    if (this.#inComment) {
      current.lines.push(line);
      if (line.includes('-->')) {
        this.#inComment = false;
        this.#flush();
      }
      return;
    }
    if (closesFence(line, this.#fence!)) {
      this.#fence = null;
      this.#flush();
      this.#previousBlank = false;
      return;
    }
    current.lines.push(line);
  }

  #code(line: string, index: number): void {
    if (this.#current?.kind !== 'code') this.#start({ kind: 'code', line: index, lines: [] }, line);
    this.#current!.lines.push(line);
    this.#previousBlank = false;
  }

  #blank(line: string): void {
    // A blank line inside indented code belongs to it; it never ends a list on its own.
    if (this.#current?.kind === 'code') this.#current.lines.push(line);
    else this.#flush();
    this.#previousBlank = true;
  }

  /** True while a paragraph or container run is open, so an indented line continues it. */
  #continues(): boolean {
    return this.#current?.kind === 'paragraph' || this.#current?.kind === 'container';
  }

  #start(block: Block, line: string): void {
    this.#flush();
    if (!/^ {2}/.test(line) && block.kind !== 'code') this.#inList = false;
    this.#current = block;
  }

  #flush(): void {
    const current = this.#current;
    if (current === null) return;
    if (current.kind === 'code') {
      // Trailing blank lines of indented code are not part of it (§4.4).
      while (current.lines.length > 0 && current.lines.at(-1)!.trim() === '') current.lines.pop();
    }
    this.#blocks.push(current);
    this.#current = null;
  }
}

/** ATX heading content without its optional closing `#` run (§4.2). */
function atxSource(raw: string): string {
  return /^#+$/.test(raw.trim()) ? '' : raw.replace(/[ \t]+#+[ \t]*$/, '').trim();
}

function closesFence(line: string, fence: Fence): boolean {
  const m = /^ {0,3}(`+|~+)[ \t]*$/.exec(line);
  return m !== null && m[1]![0] === fence.char && m[1]!.length >= fence.length;
}

/** CommonMark §4.7: labels match case-insensitively with inner whitespace collapsed. */
export function normalizeLabel(label: string): string {
  return label.trim().replace(/\s+/gu, ' ').toLowerCase();
}

/** `<dest>` loses its brackets; backslash escapes of punctuation are resolved. */
export function unwrapDestination(dest: string): string {
  const bare = dest.startsWith('<') && dest.endsWith('>') ? dest.slice(1, -1) : dest;
  return bare.replace(/\\([!-/:-@[-`{-~])/g, '$1');
}
