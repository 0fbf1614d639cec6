/**
 * Go's `%q` (strconv.Quote) for the error texts that reach the wire: the Go
 * handler sends `err.Error()` as the body of a bad-request, so a key name in a
 * message must be quoted the way Go quotes it to keep the bytes identical.
 */
const printable = /^[\p{L}\p{M}\p{N}\p{P}\p{S} ]$/u;

const shortEscapes: Record<string, string> = {
  '\u0007': '\\a',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
  '\v': '\\v',
  '"': '\\"',
  '\\': '\\\\',
};

export function goQuote(text: string): string {
  let out = '"';
  for (const char of text) out += quoteRune(char);
  return out + '"';
}

function quoteRune(char: string): string {
  const short = shortEscapes[char];
  if (short !== undefined) return short;
  if (printable.test(char)) return char;
  const code = char.codePointAt(0) ?? 0;
  if (code < 0x20 || code === 0x7f) return `\\x${hex(code, 2)}`;
  // A lone surrogate is not valid UTF-8; Go would have decoded it as U+FFFD.
  if (code >= 0xd800 && code <= 0xdfff) return '\\ufffd';
  if (code < 0x10000) return `\\u${hex(code, 4)}`;
  return `\\U${hex(code, 8)}`;
}

function hex(code: number, width: number): string {
  return code.toString(16).padStart(width, '0');
}
