/**
 * Tokenizer shared by documents and queries.
 *
 * Go `bodymatch.go` (body match): a token is a run of word characters (letter, number
 * or `_`), lowercase, at least 2 runes and at most 32 bytes. Spexcode's
 * `ranker.ts` adds that Han, kana and compatibility ideographs are tokenized one character
 * per token, because those scripts do not separate words with spaces.
 *
 * Decision: a CJK character is a token on its own and is exempt from the ≥ 2-rune
 * rule. The rune floor exists to drop noise such as the `s` of `session's`; one
 * ideograph is a morpheme, not noise, and without the exemption no CJK prose could
 * ever be found.
 */

/** Han Ext-A, Unified Ideographs, Compatibility Ideographs, Hiragana and Katakana. */
export const cjkClass = '\\u3400-\\u4dbf\\u4e00-\\u9fff\\uf900-\\ufaff\\u3040-\\u30ff';

// The `v` flag is built at run time so the tsc target (es2023) does not reject it.
const tokenPattern = new RegExp(`[${cjkClass}]|[[\\p{L}\\p{N}_]--[${cjkClass}]]+`, 'gv');
const cjkCharPattern = new RegExp(`^[${cjkClass}]$`, 'u');
const cjkAnyPattern = new RegExp(`[${cjkClass}]`, 'u');
const firstWordChar = /[\p{L}\p{N}_]/u;
const wordChar = /^[\p{L}\p{N}_]$/u;

/** Longest token, in UTF-8 bytes (Go `bodymatch.go`). */
export const maxTokenBytes = 32;
/** Shortest non-CJK token, in runes (Go `bodymatch.go`). */
export const minTokenRunes = 2;

/** True for one Han or kana character. */
export function isCjkChar(s: string): boolean {
  return cjkCharPattern.test(s);
}

/** True if the text holds any Han or kana character. */
export function hasCjk(s: string): boolean {
  return cjkAnyPattern.test(s);
}

/** UTF-8 length of a string, without reaching for Node's Buffer. */
export function utf8Length(s: string): number {
  let bytes = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}

function runeCount(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/** Whether a lowercase word run is kept as a token (Go `bodymatch.go` bounds, CJK exemption). */
export function keepsToken(run: string): boolean {
  if (utf8Length(run) > maxTokenBytes) return false;
  if (run.length === 1) return isCjkChar(run);
  return run.length > 3 || runeCount(run) >= minTokenRunes;
}

/**
 * The index tokens of a text: lowercase word runs and CJK unigrams, in order,
 * duplicates kept (term frequency counts them).
 */
export function wordRuns(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(tokenPattern)) {
    if (keepsToken(m[0])) out.push(m[0]);
  }
  return out;
}

/**
 * Trim non-word characters from both ends (Go `bodymatch.go` query and field rule).
 * By hand at the end: an unanchored `[^\p{L}\p{N}_]+$` is retried at every
 * position of a punctuation run that a letter ends, which made one long query
 * field cost seconds (test/security/query-linear.test.ts).
 */
export function trimNonWord(field: string): string {
  const start = field.search(firstWordChar);
  if (start === -1) return '';
  let end = field.length;
  // Step back one code point at a time; the character at `start` is a word character, so this stops.
  for (;;) {
    const width = isLowSurrogate(field.charCodeAt(end - 1)) && isHighSurrogate(field.charCodeAt(end - 2)) ? 2 : 1;
    if (wordChar.test(field.slice(end - width, end))) return field.slice(start, end);
    end -= width;
  }
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number) => code >= 0xdc00 && code <= 0xdfff;

/**
 * Go `bodymatch.go` field tokens: each whitespace field yields its trimmed whole word
 * plus each of its word runs, lowercase, ≥ 2 runes, ≤ 32 bytes; `path.Match` yields
 * `path.match`, `path` and `match`. A field holding CJK yields no whole word: its
 * characters are tokens one by one, so the whole run would only duplicate them.
 *
 * The index keeps runs only (see search-index.ts): a whole word is always
 * accompanied by its runs, so matching on runs finds every row the whole word would.
 */
export function fieldTokens(text: string): string[] {
  const out: string[] = [];
  for (const field of text.split(/\s+/u)) {
    const whole = trimNonWord(field).toLowerCase();
    if (whole === '') continue;
    const runs = wordRuns(whole);
    const seen = new Set<string>();
    if (!hasCjk(whole) && keepsToken(whole)) {
      out.push(whole);
      seen.add(whole);
    }
    for (const run of runs) {
      if (seen.has(run)) continue;
      seen.add(run);
      out.push(run);
    }
  }
  return out;
}
