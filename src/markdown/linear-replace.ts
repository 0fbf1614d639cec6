/**
 * Replacements that a backtracking regular expression made in quadratic time,
 * done in one pass with the same result. `/<!--[\s\S]*?-->/g` or
 * `/\[((?:[^\]\\]|\\.)*)\]\([^)]*\)/g` restart at every `<!--` or `[` and,
 * when nothing closes it, scan to the end of the text each time: a 1 MiB
 * heading of `[` took minutes (test/security/markdown-linear.test.ts). Here
 * each scan for a closing mark is remembered (`NextMatch`), so the text is
 * read a bounded number of times whatever it holds, and `replaceEach` walks
 * the openings and splices in the replacements for every such function here
 * and in src/search/markup.ts. Each function states the pattern it replaces;
 * the results are the pattern's, match for match.
 */

/**
 * The first match of `pattern` at or after a position. Answers for positions
 * that only grow are served from the previous scan while no earlier match can
 * exist, so they read the text once in all.
 */
export class NextMatch {
  readonly #s: string;
  readonly #pattern: string | RegExp;
  #from = Number.POSITIVE_INFINITY;
  #at = -1;

  /** A RegExp `pattern` must have the `g` flag, so that the search starts at a position. */
  constructor(s: string, pattern: string | RegExp) {
    this.#s = s;
    this.#pattern = pattern;
  }

  from(i: number): number {
    // Nothing matches in [#from, #at): the answer for any i in between is #at (or none, as before).
    if (i >= this.#from && (this.#at < 0 || i <= this.#at)) return this.#at;
    this.#from = i;
    if (typeof this.#pattern === 'string') this.#at = this.#s.indexOf(this.#pattern, i);
    else {
      this.#pattern.lastIndex = i;
      this.#at = this.#pattern.exec(this.#s)?.index ?? -1;
    }
    return this.#at;
  }
}

/** A match a `replaceEach` matcher found: the text that replaces it, and the index just after it. */
type Replacement = { text: string; end: number };

/** A matcher's answer when no match starts at this opening nor at any later one. */
const noneFromHere = Symbol('noneFromHere');

/**
 * `s` with each match replaced, left to right, the way a global `s.replace`
 * does: every match starts at an occurrence of `opener`, and `matchAt(open)`
 * says whether one starts there (null: try the next occurrence after `open`).
 * The search resumes after a match, so matches never overlap. Linear in `s`
 * as long as `matchAt` is amortized constant time, which the `NextMatch`
 * readers it uses are for openings that only grow.
 */
export function replaceEach(
  s: string,
  opener: string,
  matchAt: (open: number) => Replacement | null | typeof noneFromHere,
): string {
  let out = '';
  let done = 0;
  for (let open = s.indexOf(opener); open >= 0; open = s.indexOf(opener, open)) {
    const match = matchAt(open);
    if (match === noneFromHere) break;
    if (match === null) {
      open++;
      continue;
    }
    out += s.slice(done, open) + match.text;
    done = open = match.end;
  }
  return out + s.slice(done);
}

/** What `.` does not match (ECMAScript: LF, CR, U+2028, U+2029). */
const lineTerminators = /[\n\r\u2028\u2029]/g;

/**
 * Every HTML comment replaced by `replacement`: `/<!--[\s\S]*?-->/g`, or with
 * `withinLine`, `/<!--.*?-->/g` (no line terminator inside).
 */
export function replaceComments(s: string, replacement: string, withinLine = false): string {
  if (!s.includes('<!--')) return s;
  const closes = new NextMatch(s, '-->');
  const breaks = withinLine ? new NextMatch(s, new RegExp(lineTerminators)) : null;
  return replaceEach(s, '<!--', (open) => {
    const close = closes.from(open + 4);
    if (close < 0) return noneFromHere; // No `-->` after this opening, so none after any later one either.
    const lineBreak = breaks?.from(open + 4) ?? -1;
    if (lineBreak >= 0 && lineBreak < close) return null;
    return { text: replacement, end: close + 3 };
  });
}

export type LinkShape = {
  /** `![` for images, `[` for links. */
  opener: '![' | '[';
  /** `inline` for `](...)`, `reference` for `][...]`. */
  tail: 'inline' | 'reference';
  /**
   * For a text, where a label starting at `start` (just after a `[`) ends: at its closing `]`, at
   * the first character it cannot hold, or -1 or the text's length at its end.
   */
  labelEnds: (s: string) => (start: number) => number;
};

/**
 * Each link or image of `shape` replaced by its label text, as
 * `s.replace(/<opener>(LABEL)\](?:\([^)]*\)|\[LABEL\])/g, '$1')` does, where
 * LABEL is what `shape.labelEnds` reads.
 */
export function replaceLinks(s: string, shape: LinkShape): string {
  if (!s.includes(shape.opener)) return s;
  // The label of a reference's `[...]` tail is read by its own reader: its starts grow in step
  // with the labels', while one reader asked at both would scan the same text again and again.
  const labelEnd = shape.labelEnds(s);
  const tail: Tail = { kind: shape.tail, labelEnd: shape.tail === 'reference' ? shape.labelEnds(s) : labelEnd };
  const parens = new NextMatch(s, ')');
  return replaceEach(s, shape.opener, (open) => {
    const start = open + shape.opener.length;
    const close = labelEnd(start);
    const end = close < 0 || s[close] !== ']' ? -1 : tailEnd(s, close + 1, tail, parens);
    return end < 0 ? null : { text: s.slice(start, close), end };
  });
}

type Tail = { kind: LinkShape['tail']; labelEnd: (start: number) => number };

/** The index after `(...)` or `[...]` at `at`, or -1 when the tail is not there. */
function tailEnd(s: string, at: number, tail: Tail, parens: NextMatch): number {
  if (tail.kind === 'inline') {
    if (s[at] !== '(') return -1;
    const close = parens.from(at + 1);
    return close < 0 ? -1 : close + 1;
  }
  if (s[at] !== '[') return -1;
  const close = tail.labelEnd(at + 1);
  return close >= 0 && s[close] === ']' ? close + 1 : -1;
}

/** `labelEnds` for labels of `[^\]]*`: up to the next `]`. */
export function bracketLabelEnds(s: string): (start: number) => number {
  const next = new NextMatch(s, ']');
  return (start) => next.from(start);
}

/**
 * `labelEnds` for labels of `(?:[^\]\\]|\\.)*`: a backslash escapes the next
 * character unless it is a line terminator. Computed once from the end, since
 * where a label ends depends on the escapes before it.
 */
export function escapedLabelEnds(s: string): (start: number) => number {
  const ends = new Int32Array(s.length + 2);
  ends[s.length] = s.length;
  ends[s.length + 1] = s.length;
  for (let i = s.length - 1; i >= 0; i--) {
    const c = s.charCodeAt(i);
    if (c === 0x5d) ends[i] = i;
    else if (c !== 0x5c) ends[i] = ends[i + 1]!;
    else if (i + 1 < s.length && !isLineTerminator(s.charCodeAt(i + 1))) ends[i] = ends[i + 2]!;
    else ends[i] = i;
  }
  return (start) => ends[start]!;
}

/** A space or a tab, the only blanks Markdown's line syntax counts. */
export function isSpaceOrTab(c: string | undefined): boolean {
  return c === ' ' || c === '\t';
}

/** What `.` does not match (ECMAScript: LF, CR, U+2028, U+2029), by character code. */
export function isLineTerminator(c: number): boolean {
  return c === 0x0a || c === 0x0d || c === 0x2028 || c === 0x2029;
}
