import { parseDocument, isMap, isScalar, isPair } from 'yaml';
import { writeScalar } from './yaml-scalar.ts';
import { errorWithCode } from '../errors/coded-error.ts';

/**
 * Encodes a string map as yaml.v3's `Marshal(map[string]string)` does: keys in
 * byte order, one `key: value` line each, values quoted only where YAML would
 * otherwise read them as non-strings or could not read them at all.
 */
export function encodeYamlMap(map: Readonly<Record<string, string>>): string {
  const keys = Object.keys(map).sort(compareBytes);
  let out = '';
  for (const key of keys) {
    const renderedKey = writeScalar(key, 0, false);
    const column = Array.from(renderedKey).length + 2;
    out += `${renderedKey}: ${writeScalar(map[key]!, column, true)}\n`;
  }
  return out;
}

/** Go sorts map keys by bytes; for UTF-16 strings that is code point order. */
export function compareBytes(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a), Buffer.from(b));
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

/** `key: value` with a key of word characters and a value YAML reads as plain text (see decodeSimpleMap). */
const simpleLine = /^([A-Za-z0-9_][A-Za-z0-9_-]*): ([A-Za-z0-9_./=+(][\x20-\x7e]*)$/;

/**
 * The common metadata block, decoded without the YAML parser: every line is
 * `key: value` where the value is printable ASCII that cannot start or hold YAML
 * syntax (no leading indicator, no `: ` or ` #`, no trailing `:` or space), so its
 * plain scalar is its own text. Anything else (quotes, comments, continuation
 * lines, duplicate keys, non-ASCII) answers undefined and takes the parser, so
 * the result is always the parser's (test/protocol/yaml-map.test.ts checks this
 * on generated blocks).
 */
function decodeSimpleMap(text: string): Record<string, string> | undefined {
  const lines = text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const result: Record<string, string> = Object.create(null);
  for (const line of lines) {
    const match = simpleLine.exec(line);
    if (match === null) return undefined;
    const [, key = '', value = ''] = match;
    if (key in result || value.endsWith(':') || value.endsWith(' ') || value.includes(': ') || value.includes(' #'))
      return undefined;
    result[key] = isPlainNull('PLAIN', value) ? '' : value;
  }
  return { ...result };
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
