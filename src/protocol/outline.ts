/**
 * A markdown outline: the headings of a document with GitHub-style anchors, and
 * the section each one opens. `mark_fetch` uses it to show large documents as an
 * outline and to slice `#anchor` sections (Mark SPEC: fragments select a section
 * on the client side and are never sent).
 *
 * Headings are ATX (`#`..`######`) or setext (`===`/`---` under a paragraph
 * line), never inside fenced code blocks or indented code.
 */

export type Heading = {
  level: number;
  text: string;
  anchor: string;
  /** Zero-based line of the heading (the text line for setext headings). */
  line: number;
};

export type Section = Heading & {
  /** The heading and everything up to the next heading of the same or a higher level. */
  markdown: string;
};

const atx = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/;
const fenceOpen = /^ {0,3}(`{3,}|~{3,})/;
const setextUnderline = /^ {0,3}(=+|-+)[ \t]*$/;

export function outline(markdown: string): Heading[] {
  const lines = markdown.split('\n');
  const headings: Heading[] = [];
  const slugs = new AnchorSlugger();
  let fence: string | null = null;
  lines.forEach((raw, index) => {
    const line = raw.replace(/\r$/, '');
    if (fence !== null) {
      if (new RegExp(`^ {0,3}${fence[0]}{${fence.length},}[ \\t]*$`).test(line)) fence = null;
      return;
    }
    const open = fenceOpen.exec(line);
    if (open) {
      fence = open[1]!;
      return;
    }
    const heading = headingAt(lines, index);
    if (heading) headings.push({ ...heading, anchor: slugs.slug(heading.text), line: heading.line });
  });
  return headings;
}

function headingAt(lines: string[], index: number): { level: number; text: string; line: number } | null {
  const line = lines[index]!.replace(/\r$/, '');
  if (/^( {4}|\t)/.test(line)) return null;
  const m = atx.exec(line);
  if (m) return { level: m[1]!.length, text: (m[2] ?? '').trim(), line: index };
  const next = lines[index + 1]?.replace(/\r$/, '');
  if (next === undefined || line.trim() === '' || !setextUnderline.test(next)) return null;
  const previous = lines[index - 1]?.trim() ?? '';
  // A setext heading is a one-line paragraph here: the line above must be blank or absent.
  if (previous !== '' || fenceOpen.test(line) || /^ {0,3}([-*+]|\d+[.)]|>)\s/.test(line)) return null;
  return { level: next.trim().startsWith('=') ? 1 : 2, text: line.trim(), line: index };
}

/**
 * GitHub's anchor rule: lower-case; keep letters, numbers, `_`, `-` and spaces
 * (spaces become `-`); drop everything else. A repeated slug gets `-1`, `-2`, ...
 * and a generated suffix counts as taken.
 */
export class AnchorSlugger {
  readonly #taken = new Set<string>();

  slug(text: string): string {
    const base = anchorSlug(text);
    let candidate = base;
    for (let n = 1; this.#taken.has(candidate); n++) candidate = `${base}-${n}`;
    this.#taken.add(candidate);
    return candidate;
  }
}

export function anchorSlug(text: string): string {
  return stripInlineMarkup(text)
    .toLowerCase()
    .replace(/[^\p{L}\p{N}_\- ]/gu, '')
    .replace(/ /g, '-');
}

function stripInlineMarkup(text: string): string {
  return text
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/[*_`~]/g, (ch) => (ch === '_' ? '_' : ''));
}

/** Every heading with the markdown of the section it opens. */
export function sections(markdown: string): Section[] {
  const lines = markdown.split('\n');
  const headings = outline(markdown);
  return headings.map((heading, i) => {
    const end = headings.slice(i + 1).find((next) => next.level <= heading.level)?.line ?? lines.length;
    return { ...heading, markdown: lines.slice(heading.line, end).join('\n').replace(/\n*$/, '\n') };
  });
}

/** The section a `#anchor` names, or null when no heading has that anchor. */
export function sectionByAnchor(markdown: string, anchor: string): Section | null {
  const wanted = anchor.replace(/^#/, '').toLowerCase();
  return sections(markdown).find((section) => section.anchor === wanted) ?? null;
}
