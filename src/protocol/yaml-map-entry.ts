/**
 * One top-level metadata entry (see yaml-map-entries.ts), decoded without the
 * YAML parser when it has one of the shapes encoders write: Go's yaml.v3
 * Marshal and our encodeYamlMap (yaml-scalar.ts) write a plain, single- or
 * double-quoted scalar, folded at spaces onto continuation lines indented by
 * 4 past the 80-column best width; a hand-written or Go block may also hold
 * comments, blank lines and literal block scalars (`|`, `|-`). Anything else
 * answers undefined and is the parser's to judge, so the result is always the
 * parser's (test/protocol/yaml-map.test.ts checks this on generated blocks).
 */

/**
 * The key line: a key of word characters, then nothing (the value is empty or
 * on the lines below) or one space and the value's source text. Characters are
 * printable ASCII or printable BMP text above U+00A0 (libyaml's is_printable,
 * without surrogates, U+FEFF and the U+2028/U+2029 breaks); a tab, CR or
 * anything else takes the parser.
 */
import { closingQuote } from './yaml-map-entries.ts';

const keyLine = /^([A-Za-z0-9_][A-Za-z0-9_-]*):(?: (.*))?$/;
const printable = /^[\x20-\x7e\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*$/;
/** A plain value that cannot start with YAML syntax (indicators, quotes, space). */
const plainStart = /^[A-Za-z0-9_./=+(\u00a0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]/;
/** A continuation line: indented by spaces, its text starts with no space and no comment. */
const continuation = /^ +([^ #].*)$/;
/** A single-quoted scalar then an optional comment: `''` is the only escape. */
const singleQuoted = /^'((?:[^']|'')*)'(?: +#.*)?$/;
/** A double-quoted scalar with the escapes decodeDoubleQuoted knows, then an optional comment. */
const doubleQuoted = /^"((?:[^"\\]|\\[\\"/0abtnvfre ]|\\x[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4})*)"(?: +#.*)?$/;
/** A blank line or a comment line, which ends a plain or quoted value (what follows must be more of them). */
const blankOrComment = /^ *(?:#.*)?$/;

/** The entry's key and value, or undefined when only the parser may say. */
export function decodeEntry(lines: readonly string[]): [string, string] | undefined {
  const head = keyLine.exec(lines[0]!);
  if (head === null || !lines.every((line) => printable.test(line))) return undefined;
  const key = head[1]!;
  const source = head[2] ?? '';
  const value =
    source === '' || source.startsWith('#')
      ? emptyValue(lines)
      : source.startsWith('|')
        ? literalBlock(source, lines)
        : flowScalar(source, lines);
  return value === undefined ? undefined : [key, value];
}

/** `key:` (or `key: # comment`) with only blank and comment lines below: an empty string. */
function emptyValue(lines: readonly string[]): string | undefined {
  return trailerOnly(lines, 1) ? '' : undefined;
}

function trailerOnly(lines: readonly string[], from: number): boolean {
  for (let i = from; i < lines.length; i++) if (!blankOrComment.test(lines[i]!)) return false;
  return true;
}

/**
 * A plain or quoted scalar, on one line or folded onto continuation lines.
 * Folding joins the lines with one space, each continuation line's indentation
 * removed (YAML 1.2 §6.5, line folding); a blank line, trailing whitespace or
 * an escaped line break would fold otherwise and takes the parser.
 */
function flowScalar(first: string, lines: readonly string[]): string | undefined {
  let text: string;
  let next = 1;
  // A plain scalar ends at a comment; a quoted one where its closing quote is.
  // Each line is looked at once, so a long folded value costs its length.
  const quote = first[0] === "'" || first[0] === '"' ? first[0] : undefined;
  let ended = quote === undefined ? first.includes(' #') : closingQuote(first, quote, 1) !== undefined;
  // Plain text drops the spaces that end a line (YAML 1.2 §7.3.3); a quoted line ending
  // in a space or an escape folds otherwise. The last piece is checked, not the whole
  // text: endsWith would flatten the growing string on every line.
  let last = quote === undefined ? withoutTrailingSpaces(first) : first;
  text = last;
  while (next < lines.length && !ended) {
    const more = continuation.exec(lines[next]!);
    if (more === null) break;
    if (last.endsWith(' ') || (quote === '"' && last.endsWith('\\'))) return undefined;
    last = quote === undefined ? withoutTrailingSpaces(more[1]!) : more[1]!;
    text += ` ${last}`;
    ended = quote === undefined ? last.includes(' #') : closingQuote(last, quote, 0) !== undefined;
    next++;
  }
  if (!trailerOnly(lines, next)) return undefined;
  if (quote === "'") {
    const quoted = singleQuoted.exec(text);
    return quoted === null ? undefined : quoted[1]!.replaceAll("''", "'");
  }
  if (quote === '"') {
    const quoted = doubleQuoted.exec(text);
    return quoted === null ? undefined : decodeDoubleQuoted(quoted[1]!);
  }
  return plainValue(text, next === 1);
}

/** The text without the spaces that end it (String#trimEnd would also take U+00A0 and other Unicode spaces). */
function withoutTrailingSpaces(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x20) end--;
  return end === text.length ? text : text.slice(0, end);
}

/**
 * Plain text that cannot start or hold YAML syntax (no leading indicator, no
 * `: `, no trailing `:`), up to an optional ` #` comment. Only a one-line plain scalar can be a null word (`~`, `null`).
 */
function plainValue(text: string, oneLine: boolean): string | undefined {
  const comment = text.indexOf(' #');
  const value = comment < 0 ? text : withoutTrailingSpaces(text.slice(0, comment));
  if (!plainStart.test(value) || value.endsWith(':') || value.includes(': ')) return undefined;
  return oneLine && isPlainNull('PLAIN', value) ? '' : value;
}

/**
 * A literal block scalar with clip (`|`) or strip (`|-`) chomping and the
 * indentation of its first non-empty line (YAML 1.2 §8.1.2): the lines below
 * it with that indentation removed, joined by LF; trailing empty lines are
 * dropped, and clip keeps one final LF after non-empty content. Keep (`|+`),
 * explicit indentation, a header comment, whitespace-only lines and a line
 * indented less than the first take the parser.
 */
function literalBlock(header: string, lines: readonly string[]): string | undefined {
  if (header !== '|' && header !== '|-') return undefined;
  const body = lines.slice(1);
  // Trailing empty lines are chomped; a comment at column 0 ends the block.
  while (body.length > 0 && (body.at(-1) === '' || body.at(-1)!.startsWith('#'))) body.pop();
  if (body.length === 0) return '';
  const firstText = body.find((line) => line !== '')!;
  const indent = firstText.length - firstText.trimStart().length;
  if (indent === 0) return undefined;
  const prefix = ' '.repeat(indent);
  let value = '';
  for (let i = 0; i < body.length; i++) {
    const line = body[i]!;
    if (line !== '' && (!line.startsWith(prefix) || line.trim() === '')) return undefined;
    value += (i === 0 ? '' : '\n') + line.slice(indent);
  }
  return header === '|' ? `${value}\n` : value;
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

/** yaml.v3 leaves a string empty when the plain scalar is a YAML null (`~`, `null`). */
export function isPlainNull(type: string | undefined, value: unknown): boolean {
  return type === 'PLAIN' && (value === '~' || value === 'null' || value === 'Null' || value === 'NULL');
}
