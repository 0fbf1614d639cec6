/**
 * The Go string semantics the catalog depends on beyond the query rules, so the
 * TypeScript catalog answers exactly as the Go server does
 * (server/internal/catalog): `strings.EqualFold` and byte-wise string order.
 * `unicode.IsSpace`, `strings.TrimSpace`, `strings.Fields`, `strings.ToLower`
 * (src/protocol/go-strings.ts) and `%q` quoting (src/protocol/go-quote.ts) live
 * in the protocol layer, which the broker shares.
 */

import { asciiOnly } from '../../protocol/go-strings.ts';

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
