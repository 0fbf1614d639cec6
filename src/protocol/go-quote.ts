/**
 * Go's `%q` (strconv.Quote): the Go server and broker put quoted names in the
 * error texts they send (`metadata key "x" is reserved`, URL errors, the
 * tokens.toml entries they write), so ours quote the same way to keep those
 * bytes identical. Printable runes (unicode.IsPrint: letters, marks, numbers,
 * punctuation, symbols, ASCII space) stay; the rest become `\n`-style,
 * `\xNN`, `\uNNNN` or `\UNNNNNNNN` escapes.
 */
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;
const namedEscapes: Readonly<Record<number, string>> = {
  7: '\\a',
  8: '\\b',
  9: '\\t',
  10: '\\n',
  11: '\\v',
  12: '\\f',
  13: '\\r',
};

export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) {
    const code = char.codePointAt(0) ?? 0;
    if (char === '"' || char === '\\') out += `\\${char}`;
    // A lone surrogate cannot reach Go as UTF-8; it would arrive as U+FFFD, which is printable.
    else if (code >= 0xd800 && code <= 0xdfff) out += '\ufffd';
    else if (printable.test(char)) out += char;
    else if (namedEscapes[code] !== undefined) out += namedEscapes[code];
    else if (code < 0x80) out += `\\x${hex(code, 2)}`;
    else if (code < 0x10000) out += `\\u${hex(code, 4)}`;
    else out += `\\U${hex(code, 8)}`;
  }
  return `${out}"`;
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}
