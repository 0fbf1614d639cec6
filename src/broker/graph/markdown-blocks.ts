/**
 * The parts of a markdown document where inline links can occur: runs of
 * content lines outside fenced and indented code, split at blank lines and
 * around ATX headings, plus the link reference definitions
 * (CommonMark §4.7), which apply to the whole document. Line based and
 * linear in the document size; it mirrors what goldmark's block parser hands
 * to its inline parser closely enough for link extraction.
 */

export type TextBlock = {
  /** Zero-based line of the block's first line. */
  line: number;
  text: string;
};

export type MarkdownBlocks = {
  blocks: TextBlock[];
  /** Normalized label → destination; the first definition of a label wins. */
  definitions: ReadonlyMap<string, string>;
};

const fenceOpen = /^ {0,3}(`{3,}|~{3,})([^`]*)$/;
const atxHeading = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const listItem = /^ {0,3}(?:[-*+]|\d{1,9}[.)])(?:[ \t]|$)/;
const indented = /^(?: {4}|\t)/;
const definition =
  /^ {0,3}\[((?:[^\\\]]|\\.){1,999})\]:[ \t]*(<[^<>\n]*>|\S+)(?:[ \t]+(?:"[^"]*"|'[^']*'|\([^)]*\)))?[ \t]*$/;

export function markdownBlocks(markdown: string): MarkdownBlocks {
  const lines = markdown.split('\n');
  const blocks: TextBlock[] = [];
  const definitions = new Map<string, string>();
  let current: { line: number; lines: string[] } | null = null;
  let fence: { char: string; length: number } | null = null;
  let previousBlank = true;
  let inList = false;
  const flush = () => {
    if (current !== null) blocks.push({ line: current.line, text: current.lines.join('\n') });
    current = null;
  };
  lines.forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (fence !== null) {
      if (closesFence(line, fence)) fence = null;
      return;
    }
    const open = fenceOpen.exec(line);
    if (open) {
      flush();
      if (!/^ {2}/.test(line)) inList = false;
      fence = { char: open[1]![0]!, length: open[1]!.length };
      return;
    }
    if (line.trim() === '') {
      flush();
      previousBlank = true;
      return;
    }
    // An indented line after a blank line is code, unless it continues a list item.
    if (indented.test(line) && previousBlank && current === null && !inList) return;
    if (listItem.test(line)) inList = true;
    else if (!indented.test(line) && previousBlank) inList = false;
    previousBlank = false;
    const def = current === null ? definition.exec(line) : null;
    if (def) {
      const label = normalizeLabel(def[1]!);
      if (label !== '' && !definitions.has(label)) definitions.set(label, unwrapDestination(def[2]!));
      return;
    }
    if (atxHeading.test(line)) {
      flush();
      if (!/^ {2}/.test(line)) inList = false;
      blocks.push({ line: index, text: line });
      return;
    }
    current ??= { line: index, lines: [] };
    current.lines.push(line);
  });
  flush();
  return { blocks, definitions };
}

function closesFence(line: string, fence: { char: string; length: number }): boolean {
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
