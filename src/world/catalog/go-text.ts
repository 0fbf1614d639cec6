/**
 * The Go string semantics LOOKUP depends on, so the TypeScript catalog answers
 * exactly as the Go server does (server/internal/catalog): `unicode.IsSpace`,
 * `strings.TrimSpace`, `strings.Fields`, `strings.ToLower`, `strings.EqualFold`,
 * byte-wise string order, and `%q` quoting for error messages.
 */

/** `unicode.IsSpace`: the Unicode White_Space property, hard-coded so trimming stays linear. */
export function isGoSpace(code: number): boolean {
  if (code < 0x80) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  return (
    code === 0x85 ||
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000
  );
}

/** `strings.TrimSpace`. JS `trim()` differs: it strips U+FEFF and keeps U+0085. */
export function goTrimSpace(text: string): string {
  let start = 0;
  let end = text.length;
  while (start < end && isGoSpace(text.charCodeAt(start))) start++;
  while (end > start && isGoSpace(text.charCodeAt(end - 1))) end--;
  return start === 0 && end === text.length ? text : text.slice(start, end);
}

/** `strings.Fields`: the maximal runs of non-space characters. */
export function goFields(text: string): string[] {
  const fields: string[] = [];
  let start = -1;
  for (let i = 0; i < text.length; i++) {
    const space = isGoSpace(text.charCodeAt(i));
    if (space && start >= 0) {
      fields.push(text.slice(start, i));
      start = -1;
    } else if (!space && start < 0) {
      start = i;
    }
  }
  if (start >= 0) fields.push(text.slice(start));
  return fields;
}

const asciiOnly = /^[\x00-\x7f]*$/;

/**
 * `strings.ToLower`: Go maps each rune on its own (unicode.ToLower), while JS
 * applies the two full mappings of SpecialCasing: U+0130 becomes `i̇` (Go: `i`)
 * and a word-final Σ becomes ς (Go: σ). Pre-mapping those two makes them agree.
 */
export function goToLower(text: string): string {
  if (asciiOnly.test(text)) return text.toLowerCase();
  return text.replaceAll('\u0130', 'i').replaceAll('\u03a3', '\u03c3').toLowerCase();
}

const foldCache = new Map<number, string>();

/**
 * A key under which two strings are equal exactly when `strings.EqualFold`
 * holds: each code point is replaced by the lowest-common form of its simple
 * case-folding orbit (K, k and the Kelvin sign all become `k`; ς, σ, Σ become σ).
 * A candidate form is kept only when the regex engine's simple case folding
 * (CaseFolding.txt C+S, the table EqualFold follows) agrees, so ı stays ı.
 */
export function foldKey(text: string): string {
  if (asciiOnly.test(text)) return text.toLowerCase();
  let out = '';
  for (const char of text) out += foldCodePoint(char);
  return out;
}

function foldCodePoint(char: string): string {
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x80) return char.toLowerCase();
  const cached = foldCache.get(code);
  if (cached !== undefined) return cached;
  const upper = singleCodePoint(char.toUpperCase()) ?? char;
  const candidate = singleCodePoint(upper.toLowerCase()) ?? upper;
  const escaped = `\\u{${code.toString(16)}}`;
  const folded = candidate === char || new RegExp(`^${escaped}$`, 'iu').test(candidate) ? candidate : char;
  foldCache.set(code, folded);
  return folded;
}

function singleCodePoint(text: string): string | undefined {
  const first = text.codePointAt(0);
  if (first === undefined) return undefined;
  return text.length === (first > 0xffff ? 2 : 1) ? text : undefined;
}

/**
 * Go compares strings byte by byte in UTF-8, which is code point order. UTF-16
 * code units agree except that U+E000..U+FFFF sort below surrogate pairs there,
 * so the first differing units are re-ranked before they are compared.
 */
export function compareCodePoints(a: string, b: string): number {
  if (a === b) return 0;
  const shared = Math.min(a.length, b.length);
  for (let i = 0; i < shared; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return utf8Rank(x) - utf8Rank(y);
  }
  return a.length - b.length;
}

function utf8Rank(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

export { goQuote } from '../../protocol/go-quote.ts';
