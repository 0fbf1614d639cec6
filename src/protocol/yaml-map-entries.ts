import { keyNotAString, notAMap, valueNotAString, YamlMapError } from './yaml-map-error.ts';

/**
 * Splits a metadata block into its top-level entries in one pass over its
 * lines, and refuses, before any YAML parser runs, every shape that makes a
 * node hold another node: a flow collection (`[`, `{`), a block sequence
 * (`- `), a complex key holding a collection (`? [`, `? - `), a nested block
 * mapping, and node properties (`&anchor`, `*alias`, `!tag`). A metadata value
 * is a string (Go decodes the block into `map[string]string`), so none of them
 * can be accepted anyway, and they are what made the `yaml` package spend
 * seconds of CPU on one 64 KiB block (nesting 65,000 deep).
 *
 * Only the places where a node can start are looked at: the beginning of a
 * line at column 0 (a key), the text after `key:` or `? ` or `: ` (a value),
 * and the first content line under a `key:` with nothing after it. Everything
 * else in an entry (continuation lines of a plain, quoted or block scalar) is
 * scalar text, which holds no nodes.
 *
 * An entry is a line at column 0 and the lines below it that are indented or
 * blank; a `: value` line at column 0 joins the `? key` entry above it. Comment
 * lines belong to the entry above them; a leading `---` and a final `...` are
 * not entries. Content
 * before the first column-0 line (an indented root map) is one entry.
 */
export type MetadataEntry = {
  /** The entry's lines, LF removed; the first is the key line. */
  readonly lines: string[];
  /** Its last line is the block's last, so no line break follows it. */
  endsBlock: boolean;
};

/** The entry's text as the block holds it, with the line break that ends its last line (`|+` keeps it). */
export function entrySource(entry: MetadataEntry): string {
  return entry.endsBlock ? entry.lines.join('\n') : `${entry.lines.join('\n')}\n`;
}

/** What the parser says when a block holds a second document (after `...` or a later `---`). */
const multipleDocuments = () => new YamlMapError('invalid YAML: MULTIPLE_DOCS');

const documentStart = /^---(?:[ \t]|$)/;
const documentEnd = /^\.\.\.(?:[ \t]|$)/;
const blankOrComment = /^[ \t]*(?:#.*)?$/;

export function splitMetadataEntries(text: string): MetadataEntry[] {
  const lines = text.split('\n');
  const entries: MetadataEntry[] = [];
  let current: OpenEntry | undefined;
  let ended = false;
  let lastLine = false;
  const add = (entry: OpenEntry, line: string) => {
    entry.lines.push(line);
    entry.endsBlock = lastLine;
  };
  for (const [index, line] of lines.entries()) {
    if (index === lines.length - 1) lastLine = true;
    if (ended) {
      if (!blankOrComment.test(line)) throw multipleDocuments();
      continue;
    }
    const first = line.charCodeAt(0);
    const atColumnZero = line.length > 0 && first !== 0x20 && first !== 0x09;
    if (!atColumnZero) {
      if (current === undefined) {
        if (blankOrComment.test(line)) continue;
        // An indented root map: one entry, screened like a key line.
        current = open(line, lastLine);
        screenKeyLine(current, line.trimStart());
        entries.push(current);
        continue;
      }
      add(current, line);
      if (current.openQuote !== undefined) {
        if (closingQuote(line, current.openQuote, 0) !== undefined) current.openQuote = undefined;
      } else if (current.valueOf !== undefined && !blankOrComment.test(line)) {
        const key = current.valueOf;
        current.valueOf = undefined;
        screenNextLineValue(current, key, line.trimStart());
      }
      continue;
    }
    // The parser reads a column-0 line inside a quoted scalar as a missing closing quote.
    if (current?.openQuote !== undefined) throw new YamlMapError('invalid YAML: MISSING_CHAR');
    if (first === 0x23 /* # */) {
      // A comment ends no entry: an indented line below it is still the entry's (and an error there).
      if (current !== undefined) add(current, line);
      continue;
    }
    if (documentStart.test(line)) {
      if (current !== undefined) throw multipleDocuments();
      if (!blankOrComment.test(line.slice(3))) throw notAMap();
      continue;
    }
    if (documentEnd.test(line)) {
      if (!blankOrComment.test(line.slice(3))) throw multipleDocuments();
      ended = true;
      continue;
    }
    if (current?.complexKey === true && isIndicator(line, 0, ':')) {
      // `? key` then `: value`: the value line belongs to the complex key's entry.
      add(current, line);
      current.complexKey = false;
      screenValue(current, '?', line, 1);
      continue;
    }
    current = open(line, lastLine);
    current.complexKey = isIndicator(line, 0, '?');
    entries.push(current);
    screenKeyLine(current, line);
  }
  return entries;
}

type OpenEntry = MetadataEntry & {
  /** A `? key` entry whose `: value` line has not come yet. */
  complexKey: boolean;
  /** The key whose value is still to come on a later line (`key:` alone). */
  valueOf: string | undefined;
  /** The quote of a quoted value not closed yet: the lines below are its text. */
  openQuote: string | undefined;
};

function open(line: string, endsBlock: boolean): OpenEntry {
  return { lines: [line], endsBlock, complexKey: false, valueOf: undefined, openQuote: undefined };
}

/** Screens a key line (without its indentation). */
function screenKeyLine(entry: OpenEntry, line: string): void {
  const first = line[0]!;
  if (first === '[' || first === '{' || first === '|' || first === '>' || isIndicator(line, 0, '-')) throw notAMap();
  if (first === '&' || first === '*' || first === '!') throw keyNotAString();
  if (isIndicator(line, 0, '?')) {
    const key = skipBlanks(line, 1);
    if (key < line.length && startsNode(line, key)) throw keyNotAString();
    noteQuote(entry, line, key);
    return;
  }
  const colon = keyEnd(line);
  if (colon !== undefined) screenValue(entry, line.slice(0, colon).trim(), line, colon + 1);
}

/**
 * Screens the value that starts at `from` on a key line. When the line holds
 * no value (nothing, or a comment), the value is on a later line: noted.
 */
function screenValue(entry: OpenEntry, key: string, line: string, from: number): void {
  const start = skipBlanks(line, from);
  if (start === line.length || line[start] === '#') entry.valueOf = key;
  else if (startsNode(line, start)) throw valueNotAString(key);
  else noteQuote(entry, line, start);
}

/** Screens the first content line under `key:`, which is the value: it may not be a collection. */
function screenNextLineValue(entry: OpenEntry, key: string, line: string): void {
  if (startsNode(line, 0)) throw valueNotAString(key);
  // `key:` then `  inner: x` is a nested map.
  if (line[0] !== '|' && line[0] !== '>' && keyEnd(line) !== undefined) throw valueNotAString(key);
  noteQuote(entry, line, 0);
}

/** A quoted scalar starting at `at` and not closed on this line keeps the entry open. */
function noteQuote(entry: OpenEntry, line: string, at: number): void {
  const quote = line[at];
  if ((quote === '"' || quote === "'") && closingQuote(line, quote, at + 1) === undefined) entry.openQuote = quote;
}

/** A node that is not a scalar starts at `at`: a collection, or a property (anchor, alias, tag). */
function startsNode(line: string, at: number): boolean {
  const ch = line[at];
  return (
    ch === '[' ||
    ch === '{' ||
    ch === '&' ||
    ch === '*' ||
    ch === '!' ||
    isIndicator(line, at, '-') ||
    isIndicator(line, at, '?')
  );
}

/** `indicator` at `at` followed by a blank or the end of the line (`- x`, `? k`, `: v`). */
function isIndicator(line: string, at: number, indicator: string): boolean {
  if (line[at] !== indicator) return false;
  const next = line[at + 1];
  return next === undefined || next === ' ' || next === '\t';
}

function skipBlanks(line: string, from: number): number {
  let at = from;
  while (line[at] === ' ' || line[at] === '\t') at++;
  return at;
}

/**
 * Where the implicit key on this line ends: the index of its `:` (followed by a
 * blank or the end of the line), or undefined when the line holds no key (a
 * scalar alone, a comment first, a quoted key left open).
 */
function keyEnd(line: string): number | undefined {
  const quote = line[0];
  if (quote === '"' || quote === "'") {
    const close = closingQuote(line, quote, 1);
    if (close === undefined) return undefined;
    const colon = skipBlanks(line, close + 1);
    return isIndicator(line, colon, ':') ? colon : undefined;
  }
  for (let at = 0; at < line.length; at++) {
    const ch = line[at];
    if (ch === '#' && at > 0 && (line[at - 1] === ' ' || line[at - 1] === '\t')) return undefined;
    if (ch === ':' && isIndicator(line, at, ':')) return at;
  }
  return undefined;
}

/** The index of the quote that closes a quoted scalar whose text goes on at `from`, if it closes on this line. */
export function closingQuote(line: string, quote: string, from: number): number | undefined {
  for (let at = from; at < line.length; at++) {
    const ch = line[at];
    if (quote === '"' && ch === '\\') at++;
    else if (ch === quote) {
      if (quote === "'" && line[at + 1] === "'") at++;
      else return at;
    }
  }
  return undefined;
}
