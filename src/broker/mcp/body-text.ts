/**
 * Mark bodies are bytes; tool results are text. Go handles bodies as strings
 * of bytes, so sizes and the outline threshold count bytes, not characters.
 */
const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: true });
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function bodyText(body: Uint8Array): string {
  return lenient.decode(body);
}

/** Not markdown: invalid UTF-8, or a NUL byte (no text document carries one). */
export function isBinaryBody(body: Uint8Array): boolean {
  if (body.includes(0)) return true;
  try {
    strict.decode(body);
    return false;
  } catch {
    return true;
  }
}

/** `"<bytes> bytes, <lines> lines"`, lines counted as Go's strings.Count(body, "\n")+1. */
export function sizeLine(body: Uint8Array): string {
  let newlines = 0;
  for (const byte of body) if (byte === 0x0a) newlines++;
  return `${body.byteLength} bytes, ${newlines + 1} lines`;
}
