import { z } from 'zod';
import { goQuote, goValueString } from './go-format.ts';
import { isGeneratedDocument } from '../graph/federation/hub-outputs.ts';
import { lookupDefaultLimit, lookupMaxLimit } from '../../protocol/limits.ts';
import { countText } from '../count-text.ts';

/**
 * Argument schemas with the reference broker's messages (Go broker
 * tool handlers: `url is required`, `expected_version is required`, ...). The same
 * schema both advertises the arguments to clients and validates them.
 */
export function requiredString(name: string, description: string) {
  return z.string({ error: wrongType(name, 'a string') }).describe(description);
}

/**
 * The one text for an argument of the wrong type. Absent is missing (`url is
 * required`, the reference's text); present but of another type says what was
 * expected and what came, so `expected_version: "1"` is not reported as missing.
 */
function wrongTypeMessage(name: string, expected: string, input: unknown): string {
  if (input === undefined) return `${name} is required`;
  return `${name} must be ${expected} (got ${describeValue(input)})`;
}

/** `wrongTypeMessage` as a zod error map, for `z.string({ error })` and the like. */
export function wrongType(name: string, expected: string) {
  return (issue: { input?: unknown }) => wrongTypeMessage(name, expected, issue.input);
}

/** What an agent sent, in a few words: a string's own text (short), other values by their JSON type. */
function describeValue(value: unknown): string {
  if (typeof value === 'string') {
    const shown = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `string ${JSON.stringify(shown)}`;
  }
  if (typeof value === 'number') return Number.isInteger(value) ? 'number' : `number ${value}`;
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

/**
 * Longest `query` a tool takes, in UTF-8 bytes (what a world's LOOKUP request
 * block counts). A question in plain words fits many times over; a world reads
 * at most 32 terms of at most 32 bytes of it anyway (src/search/query-terms.ts),
 * so a longer query only costs the broker and every world it reaches the work of
 * parsing it (docs/decisions.md).
 */
export const maxQueryBytes = 4096;

/** How the `query` descriptions state the bound (test/e2e/tool-schemas.test.ts reads it). */
export const queryLengthText = `at most ${countText(maxQueryBytes)} bytes`;

/**
 * The `query` of mark_search and the lookups: required, at most `maxQueryBytes`
 * (refused here, not as a JSON Schema `maxLength`, which counts characters).
 * The description must state `queryLengthText`.
 */
export function queryArgument(description: string) {
  return z
    .string({ error: wrongType('query', 'a string') })
    .check((ctx) => {
      const bytes = Buffer.byteLength(ctx.value, 'utf8');
      if (bytes <= maxQueryBytes) return;
      ctx.issues.push({
        code: 'custom',
        input: ctx.value,
        message:
          `query is ${countText(bytes)} bytes, longer than the ${countText(maxQueryBytes)} bytes a query may be; ` +
          'ask again with the words that matter most (a world searches at most 32 of them)',
      });
    })
    .describe(description);
}

export function optionalString(name: string, description: string) {
  return z
    .string({ error: wrongType(name, 'a string') })
    .optional()
    .describe(description);
}

export function optionalBoolean(name: string, description: string) {
  return z
    .boolean({ error: wrongType(name, 'a boolean') })
    .optional()
    .describe(description);
}

/**
 * Inclusive bounds every integer argument declares, so the advertised schema
 * says what the tool accepts; `message` replaces the default refusal where the
 * reference broker has its own text.
 */
export type IntegerBounds = { min: number; max: number; message?: string };

/** Document versions: 0 (none yet) up to the largest integer JSON numbers carry exactly. */
export const versionBounds: IntegerBounds = { min: 0, max: Number.MAX_SAFE_INTEGER };

function boundedInteger(name: string, bounds: IntegerBounds) {
  const range =
    bounds.message ??
    (bounds.max === Number.MAX_SAFE_INTEGER
      ? `${name} must be >= ${bounds.min}`
      : `${name} must be between ${bounds.min} and ${bounds.max}`);
  return integer(name).min(bounds.min, { error: range }).max(bounds.max, { error: range });
}

export function requiredInteger(name: string, description: string, bounds: IntegerBounds) {
  return boundedInteger(name, bounds).describe(description);
}

export function optionalInteger(name: string, description: string, bounds: IntegerBounds) {
  return boundedInteger(name, bounds).optional().describe(description);
}

/** A whole number, refused with `wrongTypeMessage` whether it is absent, of another type or fractional. */
function integer(name: string) {
  const error = wrongType(name, 'an integer');
  return z.number({ error }).int({ error });
}

/**
 * An integer the tool brings into range instead of refusing, where the Go
 * broker clamps (`mark_lookup_all`'s and the world's `limit`, `mark_graph`'s
 * `depth`). The advertised schema keeps only the bound the tool refuses at
 * (and JSON's safe-integer range, which zod's `int()` adds): a `maximum` of
 * `max` would have clients that check arguments against the schema refuse a
 * value the tool takes. The description must say what a value beyond counts
 * as (test/e2e/tool-schemas.test.ts reads it). Below `min` is refused with
 * `<name> must be at least <min>` (Go's `mark_lookup_all` text), unless
 * `clampBelow` brings it up to `min`, as Go's `max(1, …)` does for depth.
 * The transform has no output JSON Schema: tool schemas are converted as input,
 * as tools/list shows them (src/broker/http/register-definitions.ts).
 */
export function clampedInteger(
  name: string,
  description: string,
  bounds: { min: number; max: number; clampBelow?: boolean },
) {
  const whole = integer(name);
  const checked =
    bounds.clampBelow === true ? whole : whole.min(bounds.min, { error: `${name} must be at least ${bounds.min}` });
  return checked
    .transform((value) => Math.min(Math.max(value, bounds.min), bounds.max))
    .optional()
    .describe(description);
}

/**
 * One of a fixed set of words, advertised as a JSON Schema `enum`. Surrounding
 * blanks are ignored and a blank value means the default: MCP clients often
 * send "" for an option left out.
 */
export function optionalChoice<const T extends readonly [string, ...string[]]>(
  name: string,
  choices: T,
  description: string,
) {
  const expected = choices.map((choice) => JSON.stringify(choice)).join(' or ');
  return z
    .preprocess(
      (value) => (typeof value === 'string' ? value.trim() || undefined : value),
      z
        .enum(choices, { error: (issue) => `invalid ${name} ${goValueQuote(issue.input)}: expected ${expected}` })
        .optional(),
    )
    .describe(description);
}

function goValueQuote(value: unknown): string {
  return typeof value === 'string' ? goQuote(value) : goValueString(value);
}

/**
 * Metadata keys a tool sets through an argument of its own, each with where to set it instead:
 * left out of that tool's advertised metadata and refused when sent, since the tool would
 * otherwise drop it without a word (mark_graph_publish's `retention`).
 */
export type SetElsewhere = Partial<Record<'retention', string>>;

/**
 * Publisher metadata: advertised as an object of string values (the Mark wire
 * carries only strings), with the keys the tools give a meaning declared by
 * name. A number or boolean is still taken and written as the Go broker writes
 * it (`0.8`, `true`), so agents built against it keep working; nested values
 * are refused.
 */
export function optionalMetadata(name: string, description: string, setElsewhere: SetElsewhere = {}) {
  const stringValue = (key?: string) =>
    z.preprocess(
      (value) => (typeof value === 'number' || typeof value === 'boolean' ? goValueString(value) : value),
      z.string({
        error: (issue) => metadataValueMessage(name, key ?? String(issue.path?.at(-1) ?? 'value'), issue.input),
      }),
    );
  const named = (key: string, what: string) => stringValue(key).optional().describe(what);
  const keys = {
    title: named('title', 'the title shown in listings and lookups'),
    tags: named('tags', 'comma-separated tags, e.g. "runbook, auth"'),
    importance: named('importance', 'a number from 0 to 1 as a string, e.g. "0.8"; ranks mark_lookup'),
    ...(setElsewhere.retention === undefined
      ? {
          retention: named(
            'retention',
            'a positive integer as a string: permanently deletes all but the newest N versions',
          ),
        }
      : {}),
  };
  const elsewhere = Object.entries(setElsewhere);
  // A refinement, not a key: tools/list shows no property it refuses (z.toJSONSchema skips checks).
  return z
    .object(keys, { error: wrongType(name, 'an object of string values') })
    .catchall(stringValue())
    .superRefine((metadata, context) => {
      for (const [key, instead] of elsewhere)
        if (key in metadata)
          context.addIssue({
            code: 'custom',
            path: [key],
            message: `${name}.${key} is not taken by this tool: ${instead}`,
          });
    })
    .optional()
    .describe(description);
}

/**
 * A metadata value that is not a string, with an example of the key's own form: tags are one
 * comma-separated string (an agent's list is shown joined), importance and retention numbers as strings.
 */
function metadataValueMessage(name: string, key: string, input: unknown): string {
  const examples: Record<string, string> = {
    title: 'a string, e.g. "Deploy runbook"',
    tags: `one comma-separated string, e.g. ${JSON.stringify(tagsExample(input))}`,
    importance: 'a string, e.g. "0.8"',
    retention: 'a string, e.g. "10"',
  };
  return wrongTypeMessage(`${name}.${key}`, examples[key] ?? 'a string', input);
}

/** The tags an agent sent as a list, as the one string the wire takes. */
function tagsExample(input: unknown): string {
  if (Array.isArray(input) && input.length > 0 && input.every((tag) => typeof tag === 'string'))
    return input.join(', ');
  return 'runbook, auth';
}

/** `url` of the tools that read a document or a directory (mark_fetch, mark_explore, mark_list). */
export const urlDescription = 'mark:// URL of a document or directory, e.g. mark://team-a/index.md';

/** `url` of the tools that take one document only: the writes, mark_versions and mark_diff. */
export const documentUrlDescription = 'mark:// URL of a document, e.g. mark://team-a/docs/runbook.md';

/** The switch every search and lookup tool shares: broker-generated documents stay out unless asked for. */
export const includeGeneratedArgument = optionalBoolean(
  'include_generated',
  'also return broker-generated documents (/graph.md, /index/*.md, /.demarkus/); default false',
);

/**
 * `limit` of mark_lookup and mark_lookup_all: clamped to the most rows a world
 * returns, as the world clamps its own `limit` (Go catalog). `rows` says what
 * is counted; `note` ends the sentence where a tool has more to say.
 */
export function lookupLimitArgument(rows: string, note = '') {
  return clampedInteger(
    'limit',
    `${rows} (default ${lookupDefaultLimit}, at most ${lookupMaxLimit}: a larger limit counts as ${lookupMaxLimit}${note})`,
    { min: 1, max: lookupMaxLimit },
  );
}

/** `match` of mark_lookup and mark_lookup_all, with the world's refusal text; `body` describes body mode. */
export function lookupMatchArgument(body: string) {
  return z
    .enum(['catalog', 'body'], { error: 'match must be "catalog" or "body"' })
    .optional()
    .describe(`catalog (default): tags and titles; body: ${body}`);
}

/** The paths a search or lookup leaves out for its `include_generated` argument. */
export function skippedPaths(includeGenerated: boolean | undefined): (path: string) => boolean {
  return includeGenerated === true ? () => false : isGeneratedDocument;
}

/**
 * Rows to ask a world for so that `wanted` rows can remain once generated
 * documents are left out. The world applies its limit before the broker drops
 * them, so asking for `wanted` alone lets a generated row ranked first push a
 * real match out of the answer. The headroom is what this broker writes into a
 * hub for `worldCount` worlds (hub-outputs.ts): `/graph.md`, which can give up
 * to three section rows in body mode (its title, `## Nodes`, `## Edges`), and
 * one `/index/<host:port>.md` and one `/.demarkus/crawl-state/<world>.md` per
 * world. Capped at the most rows a world returns (docs/decisions.md).
 */
export function rowsToAsk(wanted: number, includeGenerated: boolean | undefined, worldCount: number): number {
  if (includeGenerated === true) return Math.min(wanted, lookupMaxLimit);
  return Math.min(wanted + 3 + 2 * worldCount, lookupMaxLimit);
}
