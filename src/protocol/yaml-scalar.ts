/**
 * How Go's yaml.v3 decides to write a string scalar, so that every metadata
 * block we emit is byte-identical to the Go server's.
 *
 * yaml.v3 quotes a string (double quotes) when, written plain, it would read back
 * as something other than a string: null, bool, int, float, timestamp, a YAML 1.1
 * bool (`yes`, `on`, ...) or a base-60 float. libyaml's emitter then refuses plain
 * style for strings with indicator characters (falls back to single quotes) and
 * refuses single quotes for strings with special characters (falls back to double
 * quotes). Plain and quoted values longer than the 80-column best width fold at a
 * space onto a continuation line indented by yaml.v3's indent of 4.
 */

export type ScalarStyle = 'plain' | 'single' | 'double';

const oldBools = new Set([
  'y',
  'Y',
  'yes',
  'Yes',
  'YES',
  'on',
  'On',
  'ON',
  'n',
  'N',
  'no',
  'No',
  'NO',
  'off',
  'Off',
  'OFF',
]);
const resolvedWords = new Set([
  '~',
  'null',
  'Null',
  'NULL',
  'true',
  'True',
  'TRUE',
  'false',
  'False',
  'FALSE',
  '.nan',
  '.NaN',
  '.NAN',
  '.inf',
  '.Inf',
  '.INF',
  '+.inf',
  '+.Inf',
  '+.INF',
  '-.inf',
  '-.Inf',
  '-.INF',
  '<<',
]);
const yamlFloat = /^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$/;
const base60Float = /^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$/;
const goIntLiteral = /^[-+]?(0[xX][0-9a-fA-F]+|0[oO][0-7]+|0[bB][01]+|0[0-7]*|[1-9][0-9]*)$/;
const int64Max = 2n ** 63n - 1n;
const uint64Max = 2n ** 64n - 1n;

/** True when a plain scalar would be read back by yaml.v3 as a non-string. */
function resolvesToNonString(s: string): boolean {
  if (s === '' || resolvedWords.has(s)) return true;
  const first = s.charAt(0);
  if (first === '.') return parsesAsGoFloat(s);
  if (!/[-+0-9]/.test(first)) return false;
  if (isYamlTimestamp(s)) return true;
  const plain = s.replaceAll('_', '');
  return fitsGoInt(plain) || yamlFloat.test(plain) || /^-?0b[01]+$/.test(plain);
}

function parsesAsGoFloat(s: string): boolean {
  return /^\.[0-9]+([eE][-+]?[0-9]+)?$/.test(s);
}

/** strconv.ParseInt(s, 0, 64) or ParseUint(s, 0, 64) would succeed. */
function fitsGoInt(s: string): boolean {
  if (!goIntLiteral.test(s)) return false;
  const negative = s.startsWith('-');
  const digits = s.replace(/^[-+]/, '');
  let magnitude: bigint;
  if (/^0[oO]/.test(digits)) magnitude = BigInt(`0o${digits.slice(2)}`);
  else if (/^0[0-7]+$/.test(digits)) magnitude = BigInt(`0o${digits.slice(1)}`);
  else magnitude = BigInt(digits);
  if (negative) return magnitude <= int64Max + 1n;
  return magnitude <= uint64Max;
}

/** yaml.v3 parseTimestamp: YYYY-M-D, optionally with a time (T/t with zone, or space without). */
function isYamlTimestamp(s: string): boolean {
  const m =
    /^(\d{4})-(\d{1,2})-(\d{1,2})(?:([Tt])(\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?(?:Z|[+-]\d{2}:\d{2})| (\d{1,2}):(\d{1,2}):(\d{1,2})(?:\.\d+)?)?$/.exec(
      s,
    );
  if (m === null) return false;
  const [year, month, day] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return false;
  const hour = Number(m[5] ?? m[8] ?? 0);
  const minute = Number(m[6] ?? m[9] ?? 0);
  const second = Number(m[7] ?? m[10] ?? 0);
  return hour < 24 && minute < 60 && second < 60;
}

/** libyaml's is_printable, by code point. */
function isPrintable(cp: number): boolean {
  return (
    cp === 0x0a ||
    (cp >= 0x20 && cp <= 0x7e) ||
    (cp >= 0xa0 && cp <= 0xd7ff) ||
    (cp >= 0xe000 && cp <= 0xfffd && cp !== 0xfeff)
  );
}

function isBreak(cp: number): boolean {
  return cp === 0x0d || cp === 0x0a || cp === 0x85 || cp === 0x2028 || cp === 0x2029;
}

function isBlank(ch: string | undefined): boolean {
  return ch === undefined || ch === ' ' || ch === '\t' || (ch !== undefined && isBreak(ch.codePointAt(0)!));
}

type Analysis = { plainAllowed: boolean; singleAllowed: boolean };

/** libyaml yaml_emitter_analyze_scalar, for block context. */
function analyze(s: string): Analysis {
  if (s.length === 0) return { plainAllowed: false, singleAllowed: true };
  const chars = Array.from(s);
  let blockIndicators = s.startsWith('---') || s.startsWith('...');
  let special = false;
  let lineBreaks = false;
  let spaceBreak = false;
  let breakSpace = false;
  let previousSpace = false;
  let previousBreak = false;
  let precededByWhitespace = true;
  chars.forEach((ch, i) => {
    const cp = ch.codePointAt(0)!;
    const followedByWhitespace = isBlank(chars[i + 1]);
    if (i === 0) {
      if ('#,[]{}&*!|>\'"%@`'.includes(ch)) blockIndicators = true;
      if ((ch === '?' || ch === ':') && followedByWhitespace) blockIndicators = true;
      if (ch === '-' && followedByWhitespace) blockIndicators = true;
    } else {
      if (ch === ':' && followedByWhitespace) blockIndicators = true;
      if (ch === '#' && precededByWhitespace) blockIndicators = true;
    }
    if (!isPrintable(cp) || cp === 0xfeff) special = true;
    if (isBreak(cp)) lineBreaks = true;
    if (ch === ' ') {
      if (previousBreak) breakSpace = true;
      previousSpace = true;
      previousBreak = false;
    } else if (isBreak(cp)) {
      if (previousSpace) spaceBreak = true;
      previousBreak = true;
      previousSpace = false;
    } else {
      previousSpace = false;
      previousBreak = false;
    }
    precededByWhitespace = isBlank(ch);
  });
  const leadingSpace = chars[0] === ' ';
  const trailingSpace = chars.at(-1) === ' ';
  let plainAllowed = !(leadingSpace || trailingSpace || lineBreaks || blockIndicators);
  let singleAllowed = true;
  if (breakSpace || spaceBreak || special) {
    plainAllowed = false;
    singleAllowed = false;
  }
  return { plainAllowed, singleAllowed };
}

/** The style yaml.v3 + libyaml pick for a string scalar in a block mapping. */
export function scalarStyle(s: string): ScalarStyle {
  if (resolvesToNonString(s) || oldBools.has(s) || base60Float.test(s) || s.includes('\n')) return 'double';
  const { plainAllowed, singleAllowed } = analyze(s);
  if (plainAllowed) return 'plain';
  return singleAllowed ? 'single' : 'double';
}

/** libyaml's short escapes, by code point. */
const namedEscapes = new Map<number, string>([
  [0x00, '\\0'],
  [0x07, '\\a'],
  [0x08, '\\b'],
  [0x09, '\\t'],
  [0x0a, '\\n'],
  [0x0b, '\\v'],
  [0x0c, '\\f'],
  [0x0d, '\\r'],
  [0x1b, '\\e'],
  [0x22, '\\"'],
  [0x5c, '\\\\'],
  [0x85, '\\N'],
  [0xa0, '\\_'],
  [0x2028, '\\L'],
  [0x2029, '\\P'],
]);

function escapeDoubleQuoted(ch: string): string | null {
  const cp = ch.codePointAt(0)!;
  if (isPrintable(cp) && cp !== 0xfeff && !isBreak(cp) && ch !== '"' && ch !== '\\') return null;
  const named = namedEscapes.get(cp);
  if (named !== undefined) return named;
  const hex = cp.toString(16).toUpperCase();
  if (cp <= 0xff) return `\\x${hex.padStart(2, '0')}`;
  if (cp <= 0xffff) return `\\u${hex.padStart(4, '0')}`;
  return `\\U${hex.padStart(8, '0')}`;
}

/** yaml.v3's defaults: best width 80, indent 4. */
const bestWidth = 80;
const continuationIndent = `\n${' '.repeat(4)}`;

/**
 * A string libyaml writes plain, character for character, and yaml.v3 reads back
 * as a string, recognised without the analysis: it starts with a letter or `_`
 * (no indicator, quote, digit, sign or dot, so no number or timestamp), holds only
 * letters, digits and `_-./` (no space to fold at, no `: ` or ` #`, nothing
 * unprintable), and is not a word YAML resolves (`true`, `null`, `yes`, ...).
 * Most metadata keys and many values (statuses, hashes, paths) are such strings.
 */
const safePlain = /^[A-Za-z_][A-Za-z0-9_./-]*$/;
const digitsOnly = /^[0-9]+$/;

/**
 * Writes `s` starting at `column` (characters already on the line), folding at
 * spaces past the best width as libyaml's write_plain / write_*_quoted do.
 */
export function writeScalar(s: string, column: number, foldable: boolean): string {
  if (safePlain.test(s) && !resolvedWords.has(s) && !oldBools.has(s)) return s;
  // Digits alone read back as an int or, past 64 bits, a float: double-quoted, nothing to escape or fold.
  if (digitsOnly.test(s)) return `"${s}"`;
  return writeScalarByAnalysis(s, column, foldable);
}

/** writeScalar without the fast path: every string through scalarStyle (tests compare the two). */
export function writeScalarByAnalysis(s: string, column: number, foldable: boolean): string {
  const style = scalarStyle(s);
  const chars = Array.from(s);
  let out = style === 'plain' ? '' : style === 'single' ? "'" : '"';
  let col = column + out.length;
  let spaces = false;
  chars.forEach((ch, i) => {
    if (ch === ' ') {
      const next = chars[i + 1];
      const inner = style === 'plain' || (i > 0 && i < chars.length - 1);
      const nextOk = style === 'double' || next !== ' ';
      if (foldable && !spaces && col > bestWidth && inner && nextOk) {
        out += continuationIndent + (style === 'double' && next === ' ' ? '\\' : '');
        col = 4 + (style === 'double' && next === ' ' ? 1 : 0);
      } else {
        out += ' ';
        col += 1;
      }
      spaces = true;
      return;
    }
    const piece = style === 'double' ? (escapeDoubleQuoted(ch) ?? ch) : style === 'single' && ch === "'" ? "''" : ch;
    out += piece;
    col += Array.from(piece).length;
    spaces = false;
  });
  if (style !== 'plain') out += style === 'single' ? "'" : '"';
  return out;
}
