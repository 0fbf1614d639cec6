import { parseDocument, isMap, isScalar, isPair } from 'yaml';
import { compareBytes } from './byte-order.ts';
import { writeScalar } from './yaml-scalar.ts';
import { errorWithCode } from '../errors/coded-error.ts';

/**
 * Encodes a string map as yaml.v3's `Marshal(map[string]string)` does: keys in
 * byte order, one `key: value` line each, values quoted only where YAML would
 * otherwise read them as non-strings or could not read them at all.
 */
export function encodeYamlMap(map: Readonly<Record<string, string>>): string {
  return encodeYamlMapWith(map, writeScalar, compareBytes);
}

/** encodeYamlMap with the scalar writer and key order given (the benchmark's baseline swaps both). */
export function encodeYamlMapWith(
  map: Readonly<Record<string, string>>,
  write: typeof writeScalar,
  compare: (a: string, b: string) => number,
): string {
  const keys = Object.keys(map).sort(compare);
  let out = '';
  for (const key of keys) {
    const renderedKey = write(key, 0, false);
    const column = Array.from(renderedKey).length + 2;
    out += `${renderedKey}: ${write(map[key]!, column, true)}\n`;
  }
  return out;
}

export class YamlMapError extends errorWithCode('ERR_YAML_NOT_A_STRING_MAP') {}

/**
 * Decodes a metadata block into a string map, reading every scalar as its source
 * text (`limit: 10` → "10", `key:` → ""), as Go's yaml.v3 does when it decodes into
 * `map[string]string`. Sequences, nested maps, aliases and duplicate keys are errors.
 * An empty or comment-only block is an empty map.
 */
export function decodeYamlMap(text: string): Record<string, string> {
  return decodeSimpleMap(text) ?? decodeYamlMapByParser(text);
}

/**
 * One metadata line: a key of word characters, then either nothing (an empty
 * value) or one space and the value's source text. Characters are printable
 * ASCII or printable BMP text above U+00A0 (libyaml's is_printable, without
 * surrogates, U+FEFF and the U+2028/U+2029 breaks); a tab, CR or anything else
 * takes the parser.
 */
const simpleLine =
  /^([A-Za-z0-9_][A-Za-z0-9_-]*):(?: ([\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*))?$/;
/** A plain value that cannot start with YAML syntax (indicators, quotes, space). */
const plainStart = /^[A-Za-z0-9_./=+(\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]/;
/** A single-quoted value on one line: `''` is the only escape. */
const singleQuoted = /^'((?:[^']|'')*)'$/;
/** A double-quoted value on one line, with the escapes decodeDoubleQuoted knows. */
const doubleQuoted = /^"((?:[^"\\]|\\[\\"/0abtnvfre ]|\\x[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4})*)"$/;

/**
 * The common metadata block, decoded without the YAML parser. Every line is
 * `key: value` (or `key:`) where the value is one of:
 *  - plain text that cannot start or hold YAML syntax (no leading indicator, no
 *    `: ` or ` #`, no trailing `:` or space), so its plain scalar is its own text;
 *  - a single-quoted scalar on one line (`'it''s'`);
 *  - a double-quoted scalar on one line using only the common escapes — what
 *    encodeYamlMap writes for numbers, timestamps and booleans (`"3"`).
 * Anything else (comments, continuation lines, duplicate keys, rarer escapes,
 * text after a closing quote) answers undefined and takes the parser, so the
 * result is always the parser's (test/protocol/yaml-map.test.ts checks this on
 * generated blocks and on encodeYamlMap's own output).
 */
function decodeSimpleMap(text: string): Record<string, string> | undefined {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const result: Record<string, string> = Object.create(null);
  for (const line of lines) {
    const match = simpleLine.exec(line);
    if (match === null) return undefined;
    const key = match[1]!;
    if (key in result) return undefined;
    const value = match[2] === undefined ? '' : simpleValue(match[2]);
    if (value === undefined) return undefined;
    result[key] = value;
  }
  return { ...result };
}

/** The string a one-line value's source text reads as, or undefined when only the parser may say. */
function simpleValue(source: string): string | undefined {
  const first = source.charCodeAt(0);
  if (first === 0x27 /* ' */) {
    const quoted = singleQuoted.exec(source);
    return quoted === null ? undefined : quoted[1]!.replaceAll("''", "'");
  }
  if (first === 0x22 /* " */) {
    const quoted = doubleQuoted.exec(source);
    return quoted === null ? undefined : decodeDoubleQuoted(quoted[1]!);
  }
  if (
    !plainStart.test(source) ||
    source.endsWith(':') ||
    source.endsWith(' ') ||
    source.includes(': ') ||
    source.includes(' #')
  )
    return undefined;
  return isPlainNull('PLAIN', source) ? '' : source;
}

/** YAML 1.2 double-quoted escapes (spec §5.7), the subset doubleQuoted admits. */
const shortEscapes: Readonly<Record<string, string>> = {
  '\\': '\\',
  '"': '"',
  '/': '/',
  ' ': ' ',
  '0': '\0',
  a: '\x07',
  b: '\b',
  t: '\t',
  n: '\n',
  v: '\v',
  f: '\f',
  r: '\r',
  e: '\x1b',
};

function decodeDoubleQuoted(inner: string): string | undefined {
  if (!inner.includes('\\')) return inner;
  let out = '';
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i]!;
    if (ch !== '\\') {
      out += ch;
      continue;
    }
    const kind = inner[++i]!;
    if (kind === 'x' || kind === 'u') {
      const width = kind === 'x' ? 2 : 4;
      const code = Number.parseInt(inner.slice(i + 1, i + 1 + width), 16);
      // A lone surrogate half is the parser's to judge.
      if (code >= 0xd800 && code <= 0xdfff) return undefined;
      out += String.fromCharCode(code);
      i += width;
    } else out += shortEscapes[kind]!;
  }
  return out;
}

/** decodeYamlMap through the YAML parser alone: what the simple path must always agree with. */
export function decodeYamlMapByParser(text: string): Record<string, string> {
  const doc = parseDocument(text, { schema: 'failsafe', uniqueKeys: true, strict: true, prettyErrors: false });
  if (doc.errors.length > 0) throw new YamlMapError(`invalid YAML: ${doc.errors[0]!.code}`);
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === '' || root.value === null))) return {};
  if (!isMap(root)) throw new YamlMapError('metadata block is not a map');
  const result: Record<string, string> = Object.create(null);
  for (const item of root.items) {
    if (!isPair(item) || !isScalar(item.key)) throw new YamlMapError('metadata keys must be strings');
    const key = scalarText(item.key.value);
    const value = item.value;
    if (value === null) result[key] = '';
    else if (isScalar(value)) result[key] = isPlainNull(value.type, value.value) ? '' : scalarText(value.value);
    else throw new YamlMapError(`metadata value for "${key}" is not a string`);
  }
  return { ...result };
}

/** yaml.v3 leaves a string empty when the plain scalar is a YAML null (`~`, `null`). */
function isPlainNull(type: string | undefined, value: unknown): boolean {
  return type === 'PLAIN' && (value === '~' || value === 'null' || value === 'Null' || value === 'NULL');
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return String(value);
}
