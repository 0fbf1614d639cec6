/**
 * Small Go formatting rules the reference broker's texts depend on, so our tool
 * output stays byte-identical where agents compare it: `%q` quoting, `%v` of a
 * decoded JSON value, and net/url's path escaping.
 */

export { goQuote } from '../../protocol/go-quote.ts';

/**
 * Go's `fmt.Sprintf("%v", v)` for a value decoded from JSON (string, float64,
 * bool, nil, []any, map[string]any): the broker stringifies caller metadata
 * this way before it goes on the wire.
 */
export function goValueString(value: unknown): string {
  if (value === null || value === undefined) return '<nil>';
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') return goFloatString(value);
  if (Array.isArray(value)) return `[${value.map(goValueString).join(' ')}]`;
  if (typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `map[${entries.map(([k, v]) => `${k}:${goValueString(v)}`).join(' ')}]`;
  }
  return String(value);
}

/**
 * `%v` of a float64 is strconv's shortest `%g`: exponent form when the decimal
 * exponent is below -4 or at least 6 (strconv.FormatFloat, 'g', -1), with at
 * least two exponent digits; plain digits otherwise.
 */
function goFloatString(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  if (value === 0) return Object.is(value, -0) ? '-0' : '0';
  const [mantissa = '', exp = '0'] = value.toExponential().split('e');
  const exponent = Number(exp);
  // JS prints plain digits for every exponent in [-4, 6), as Go does.
  if (exponent >= -4 && exponent < 6) return String(value);
  const sign = exponent < 0 ? '-' : '+';
  return `${mantissa}e${sign}${String(Math.abs(exponent)).padStart(2, '0')}`;
}

/** net/url's escaping of a URL path (encodePath): `/` and `$&+,:;=@` stay, as do unreserved characters. */
export function goEscapePath(path: string): string {
  let out = '';
  for (const byte of Buffer.from(path)) {
    const ch = String.fromCharCode(byte);
    if (/[A-Za-z0-9\-_.~$&+,/:;=@]/.test(ch)) out += ch;
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** `mark://{world}{path}` as Go's url.URL.String() writes it (path escaped). */
export function qualifiedWorldUrl(world: string, path: string): string {
  const absolute = path.startsWith('/') ? path : `/${path}`;
  return `mark://${world}${goEscapePath(absolute)}`;
}

/** `%-<width>s`: pads with spaces to `width` runes, never truncates. */
export function goPadEnd(text: string, width: number): string {
  const runes = [...text].length;
  return runes >= width ? text : text + ' '.repeat(width - runes);
}
