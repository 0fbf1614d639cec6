/**
 * Markdown escaping as the Go renderers do it (protocol/render.Escape): a
 * backslash before each character that could open markup in a list or table.
 */
const markdownSpecials = /[\\[\]()*_`~#|]/g;

export function escapeMarkdown(text: string): string {
  return text.replace(markdownSpecials, (ch) => `\\${ch}`);
}

/** A table cell: line breaks become spaces, then the usual escaping. */
export function escapeCell(text: string): string {
  return escapeMarkdown(text.replace(/[\r\n]/g, ' '));
}

/**
 * Go's url.PathEscape: everything but letters, digits and `-_.~` and the
 * segment-safe reserved characters `$&+:=@` is percent-encoded, `/` included.
 */
export function pathEscape(segment: string): string {
  let out = '';
  for (const byte of Buffer.from(segment)) {
    const ch = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~$&+:=@]/.test(ch)) out += ch;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/**
 * Go's `%.2f`: correctly rounded, ties to even. JS `toFixed` breaks exact binary
 * ties upward (0.125 → "0.13" where Go prints "0.12"), so ties are handled here.
 */
export function formatFixed2(value: number): string {
  const scaled = value * 100;
  const floor = Math.floor(scaled);
  if (scaled - floor === 0.5 && Number.isFinite(scaled)) {
    const even = floor % 2 === 0 ? floor : floor + 1;
    return (even / 100).toFixed(2);
  }
  return value.toFixed(2);
}
