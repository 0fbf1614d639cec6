import { parseDocument, isMap, isScalar, isPair } from 'yaml';
import { compareBytes } from './byte-order.ts';
import { writeScalar } from './yaml-scalar.ts';
import { decodeEntry, isPlainNull } from './yaml-map-entry.ts';
import { entrySource, splitMetadataEntries } from './yaml-map-entries.ts';
import { keyNotAString, notAMap, valueNotAString, YamlMapError } from './yaml-map-error.ts';

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

export { YamlMapError };

/**
 * Decodes a metadata block into a string map, reading every scalar as its source
 * text (`limit: 10` → "10", `key:` → ""), as Go's yaml.v3 does when it decodes into
 * `map[string]string`. Sequences, nested maps, aliases and duplicate keys are errors.
 * An empty or comment-only block is an empty map.
 *
 * The CPU it spends is linear in the block's size: the block is split into its
 * top-level entries and screened for nested nodes in one pass
 * (yaml-map-entries.ts), the entries encoders write are decoded line by line
 * (yaml-map-entry.ts), and only the rest, at most parserBudgetChars of it, goes
 * to the `yaml` parser, one entry at a time. The parser alone spent up to 1.9 s
 * on one crafted 64 KiB block: its cost grows with nesting, with the number of
 * keys (duplicate checks) and with blank and comment lines.
 */
export function decodeYamlMap(text: string): Record<string, string> {
  return decodeYamlMapWith(text, decodeYamlMapByParser);
}

/**
 * How much of one block may need the parser. The shapes yaml.v3 and
 * encodeYamlMap write never do; an entry that does (a block scalar folded with
 * `>`, a tab, a complex key, a value on the line below its key) is hand-written
 * and small. A 4 KiB block of 400 such entries, the parser's slowest use, took
 * 32 ms on a loaded 2-core machine (bench/metadata-decode.ts); the same 64 KiB
 * block would take it seconds.
 */
export const parserBudgetChars = 4096;

/** decodeYamlMap with the parser given, so tests can see what reaches it. */
export function decodeYamlMapWith(
  text: string,
  parse: (entry: string) => Record<string, string>,
): Record<string, string> {
  // YAML reads CRLF as one line break everywhere (YAML 1.2 §5.4).
  const entries = splitMetadataEntries(text.includes('\r\n') ? text.replaceAll('\r\n', '\n') : text);
  const result: Record<string, string> = Object.create(null);
  let parserChars = 0;
  for (const entry of entries) {
    const decoded = decodeEntry(entry.lines);
    let pairs: [string, string][];
    if (decoded !== undefined) pairs = [decoded];
    else {
      const source = entrySource(entry);
      parserChars += source.length;
      if (parserChars > parserBudgetChars)
        throw new YamlMapError(
          `metadata block needs the full YAML parser for more than ${parserBudgetChars} characters; ` +
            'write each value as a plain, quoted or literal (|) scalar on its key line',
        );
      pairs = Object.entries(parse(source));
    }
    for (const [key, value] of pairs) {
      if (key in result) throw new YamlMapError('invalid YAML: DUPLICATE_KEY');
      result[key] = value;
    }
  }
  // A plain object, as the parser path answers; spreading a map of thousands of keys costs more than decoding it.
  return Object.setPrototypeOf(result, Object.prototype);
}

/** decodeYamlMap through the YAML parser alone: what the simple path must always agree with. */
export function decodeYamlMapByParser(text: string): Record<string, string> {
  const doc = parseDocument(text, { schema: 'failsafe', uniqueKeys: true, strict: true, prettyErrors: false });
  if (doc.errors.length > 0) throw new YamlMapError(`invalid YAML: ${doc.errors[0]!.code}`);
  const root = doc.contents;
  if (root === null || (isScalar(root) && (root.value === '' || root.value === null))) return {};
  if (!isMap(root)) throw notAMap();
  const result: Record<string, string> = Object.create(null);
  for (const item of root.items) {
    if (!isPair(item) || !isScalar(item.key)) throw keyNotAString();
    const key = scalarText(item.key.value);
    const value = item.value;
    if (value === null) result[key] = '';
    else if (isScalar(value)) result[key] = isPlainNull(value.type, value.value) ? '' : scalarText(value.value);
    else throw valueNotAString(key);
  }
  return { ...result };
}

function scalarText(value: unknown): string {
  if (value === null || value === undefined) return '';
  return String(value);
}
