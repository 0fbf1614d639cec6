/**
 * Go's `strconv.Quote` (what `%q` prints), so URL errors read exactly as the Go
 * broker's (reference §4.2) and the tokens.toml entry text matches its
 * `FormatEntry` (reference §2.8). Printable runes stay as they are; the rest
 * become `\n`-style, `\xNN`, `\uNNNN` or `\UNNNNNNNN` escapes.
 */
const shortEscapes: Record<number, string> = { 7: '\\a', 8: '\\b', 9: '\\t', 10: '\\n', 11: '\\v', 12: '\\f', 13: '\\r' };

// Go unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space.
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"' || char === '\\') out += `\\${char}`;
    else if (code >= 0xd800 && code <= 0xdfff) out += '\ufffd'; // a lone surrogate: Go would hold U+FFFD
    else if (printable.test(char)) out += char;
    else if (shortEscapes[code] !== undefined) out += shortEscapes[code];
    else if (code < 0x80) out += `\\x${hex(code, 2)}`;
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return `${out}"`;
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}
