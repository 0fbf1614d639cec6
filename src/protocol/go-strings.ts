/**
 * The Go string functions LOOKUP's query rules are written in (Go
 * `server/internal/catalog`, `handler.handleLookup`): `unicode.IsSpace`,
 * `strings.TrimSpace`, `strings.Fields` and `strings.ToLower`. Here, below both
 * world and broker, so the broker splits and counts a query exactly as every
 * world will (JavaScript's `\s` and `trim()` disagree on U+0085 and U+FEFF).
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

/** Text of ASCII only, whose case JavaScript and Go map alike (the fast path of the Go case functions). */
export const asciiOnly = /^[\x00-\x7f]*$/;

/**
 * `strings.ToLower`: Go maps each rune on its own (unicode.ToLower), while JS
 * applies the two full mappings of SpecialCasing: U+0130 becomes `i̇` (Go: `i`)
 * and a word-final Σ becomes ς (Go: σ). Pre-mapping those two makes them agree.
 */
export function goToLower(text: string): string {
  if (asciiOnly.test(text)) return text.toLowerCase();
  return text.replaceAll('\u0130', 'i').replaceAll('\u03a3', '\u03c3').toLowerCase();
}
