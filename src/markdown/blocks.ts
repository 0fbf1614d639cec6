/**
 * The block structure of a markdown document, line based and linear in its
 * size (CommonMark §4-§5, the parts every reader here needs): ATX and setext
 * headings, paragraphs, container runs (list items, block quotes, HTML tags,
 * up to the next blank line), fenced and indented code, HTML comments,
 * thematic breaks, and the link reference definitions (§4.7), which apply to
 * the whole document. Headings inside containers are not headings here.
 */
import { isLineTerminator, isSpaceOrTab } from './linear-replace.ts';

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

// Openings only: the rest of the line is read by hand (see `lineRest`). A `(.*)$` or `(.*?)[ \t]*$`
// after them took quadratic time on a long run of spaces, `#` or fence characters before a mid-line
// CR or U+2028 (test/security/markdown-linear.test.ts).
const fenceOpen = /^ {0,3}(`{3,}|~{3,})/;
const atxOpen = /^ {0,3}(#{1,6})(?=[ \t]|$)/;
const pipeRow = /^[ \t]*\|/;
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
  /** Whether the open paragraph has a line starting with `|` (a table, which no setext underline ends). */
  #pipeRow = false;

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
    const info = fence === null ? null : lineRest(line, fence[0].length);
    if (fence && info !== null && !(fence[1]![0] === '`' && info.includes('`'))) {
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
    const atx = atxOpen.exec(line);
    const content = atx === null ? null : lineRest(line, atx[0].length);
    if (atx && content !== null) {
      this.#start(
        { kind: 'heading', level: atx[1]!.length, source: atxSource(content), line: index, lines: [line] },
        line,
      );
      this.#flush();
      return;
    }
    const underline = setextUnderline.exec(line);
    if (underline && this.#current?.kind === 'paragraph' && !this.#pipeRow) {
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
      this.#pipeRow ||= pipeRow.test(line);
      return;
    }
    this.#flush();
    // After a blank line, an indented line inside a list continues its item.
    const container = containerStart.test(line) || (this.#inList && /^[ \t]/.test(line));
    this.#current = { kind: container ? 'container' : 'paragraph', line: index, lines: [line] };
    this.#pipeRow = pipeRow.test(line);
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

/**
 * The line after an opening at `from`, without the spaces and tabs that start it, or null when it
 * holds a line terminator (then the line was never an ATX heading or fence opening: `.` stopped there).
 */
function lineRest(line: string, from: number): string | null {
  // What `.` does not match: a line holding one after its opening never matched `(.*)$`.
  for (let i = from; i < line.length; i++) if (isLineTerminator(line.charCodeAt(i))) return null;
  let start = from;
  while (isSpaceOrTab(line[start])) start++;
  return line.slice(start);
}

/**
 * ATX heading content without its optional closing `#` run (§4.2): the run must be preceded by a
 * space or tab (`# foo#` keeps its `#`), and only spaces and tabs may follow it. Scanned back from
 * the end by hand: `/[ \t]+#+[ \t]*$/` tried every space of a long run as a start.
 */
function atxSource(raw: string): string {
  if (/^#+$/.test(raw.trim())) return '';
  let end = raw.length;
  while (end > 0 && isSpaceOrTab(raw[end - 1])) end--;
  let hashes = end;
  while (hashes > 0 && raw[hashes - 1] === '#') hashes--;
  if (hashes < end && hashes > 0 && isSpaceOrTab(raw[hashes - 1])) end = hashes;
  return raw.slice(0, end).trim();
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
