/**
 * Go's `path.Match`, faithfully: token path patterns must mean exactly what they
 * mean to the Go server, so no glob library with other rules is used.
 *
 *   pattern  = { term }
 *   term     = '*'         any sequence of non-'/' characters
 *            | '?'         any single non-'/' character
 *            | '[' [ '^' ] { range } ']'   a character class (non-empty)
 *            | c           the character c (c != '*', '?', '\\', '[')
 *            | '\\' c      the character c
 *   range    = c | c '-' c
 *
 * A malformed pattern throws BadPatternError, also when the name fails to match
 * before the malformed part is reached (Go validates the rest of the pattern).
 * Characters are Unicode code points, as Go decodes runes for '?' and classes.
 */
import { CodedError } from '../../errors/coded-error.ts';
export class BadPatternError extends CodedError<'ERR_BAD_PATTERN'> {
  constructor() {
    super('ERR_BAD_PATTERN', 'syntax error in pattern');
  }
}

type Chars = string[];

export function pathMatch(pattern: string, name: string): boolean {
  let rest: Chars = [...pattern];
  let subject: Chars = [...name];
  chunks: while (rest.length > 0) {
    const scanned = scanChunk(rest);
    rest = scanned.rest;
    const { star, chunk } = scanned;
    // A trailing star matches the rest of the name unless it holds a '/'.
    if (star && chunk.length === 0) return !subject.includes('/');
    const here = matchChunk(chunk, subject);
    if (here !== null && (here.length === 0 || rest.length > 0)) {
      subject = here;
      continue;
    }
    if (star) {
      for (let i = 0; i < subject.length && subject[i] !== '/'; i++) {
        const later = matchChunk(chunk, subject.slice(i + 1));
        if (later === null || (rest.length === 0 && later.length > 0)) continue;
        subject = later;
        continue chunks;
      }
    }
    validateRemainder(rest);
    return false;
  }
  return subject.length === 0;
}

/** Before answering "no match", Go checks that the rest of the pattern is well formed. */
function validateRemainder(rest: Chars): void {
  while (rest.length > 0) {
    const scanned = scanChunk(rest);
    rest = scanned.rest;
    matchChunk(scanned.chunk, []);
  }
}

/** The next run of non-star terms, and whether stars preceded it. */
function scanChunk(pattern: Chars): { star: boolean; chunk: Chars; rest: Chars } {
  let start = 0;
  while (start < pattern.length && pattern[start] === '*') start++;
  const body = pattern.slice(start);
  let inRange = false;
  let i = 0;
  for (; i < body.length; i++) {
    const c = body[i];
    if (c === '\\') {
      if (i + 1 < body.length) i++;
    } else if (c === '[') {
      inRange = true;
    } else if (c === ']') {
      inRange = false;
    } else if (c === '*' && !inRange) {
      break;
    }
  }
  return { star: start > 0, chunk: body.slice(0, i), rest: body.slice(i) };
}

/**
 * Whether `chunk` matches the start of `subject`: the rest of the subject, or
 * null. After a mismatch the chunk is still read to the end, to find syntax errors.
 */
function matchChunk(chunk: Chars, subject: Chars): Chars | null {
  let failed = false;
  let c = 0;
  let s = 0;
  while (c < chunk.length) {
    if (!failed && s >= subject.length) failed = true;
    const term = chunk[c];
    if (term === '[') {
      const subjectChar = failed ? null : (subject[s++] ?? null);
      const cls = matchClass(chunk, c + 1, subjectChar);
      c = cls.next;
      if (!cls.matched) failed = true;
    } else if (term === '?') {
      if (!failed) failed = subject[s++] === '/';
      c++;
    } else {
      if (term === '\\') {
        c++;
        if (c >= chunk.length) throw new BadPatternError();
      }
      if (!failed) failed = chunk[c] !== subject[s++];
      c++;
    }
  }
  return failed ? null : subject.slice(s);
}

/** A character class starting after its '['; `subjectChar` null once the match already failed. */
function matchClass(chunk: Chars, start: number, subjectChar: string | null): { next: number; matched: boolean } {
  let c = start;
  let negated = false;
  if (c < chunk.length && chunk[c] === '^') {
    negated = true;
    c++;
  }
  const r = subjectChar === null ? 0 : (subjectChar.codePointAt(0) ?? 0);
  let inClass = false;
  for (let ranges = 0; ; ranges++) {
    if (c < chunk.length && chunk[c] === ']' && ranges > 0)
      return { next: c + 1, matched: subjectChar !== null && inClass !== negated };
    const lo = classChar(chunk, c);
    let hi = lo;
    if (chunk[lo.next] === '-') hi = classChar(chunk, lo.next + 1);
    c = hi.next;
    if (lo.code <= r && r <= hi.code) inClass = true;
  }
}

/** Go `getEsc`: one possibly escaped class character, never the last of the chunk. */
function classChar(chunk: Chars, at: number): { code: number; next: number } {
  let c = at;
  if (c >= chunk.length || chunk[c] === '-' || chunk[c] === ']') throw new BadPatternError();
  if (chunk[c] === '\\') {
    c++;
    if (c >= chunk.length) throw new BadPatternError();
  }
  const code = chunk[c]?.codePointAt(0) ?? 0;
  c++;
  if (c >= chunk.length) throw new BadPatternError();
  return { code, next: c };
}
