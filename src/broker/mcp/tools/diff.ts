import { z } from 'zod';
import { parseVersions } from '../../../protocol/render/versions.ts';
import type { MarkResponse } from '../../../protocol/response.ts';
import { documentUrlDescription, optionalInteger, requiredString, versionBounds } from '../args.ts';
import { bodyText, isBinaryBody } from '../body-text.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { formatToolResult } from '../format-tool-result.ts';
import { qualifiedWorldUrl } from '../go-format.ts';
import { defineTool } from '../run-tool.ts';
import { responseFields, responseShape } from '../structured.ts';
import { readWorld, urlArgument } from '../tool-input.ts';
import { structuredResult, toolError } from '../tool-result.ts';
import { defaultDiffBounds, diffVersions, type DiffBounds } from '../version-diff.ts';
import { describe } from './descriptions.ts';

const defaultContext = 3;
const maxContext = 20;

const inputSchema = {
  url: requiredString('url', documentUrlDescription),
  from: optionalInteger(
    'from',
    'the older version, at most `to` (default: the kept version before `to`; 0 compares with the empty document before it existed)',
    { ...versionBounds, message: 'from must be 0 or a version number' },
  ),
  to: optionalInteger('to', 'the newer version (default: the current version)', {
    ...versionBounds,
    min: 1,
    message: 'to must be a version number (1 or more)',
  }),
  context: optionalInteger('context', `unchanged lines shown around each change, 0 to ${maxContext} (default 3)`, {
    min: 0,
    max: maxContext,
  }),
};

const hunkSchema = z.object({
  old_start: z.number().int(),
  old_lines: z.number().int(),
  new_start: z.number().int(),
  new_lines: z.number().int(),
  lines: z
    .array(z.string())
    .describe('each line with its mark: "+" added, "-" removed, " " unchanged, "\\" the no-newline-at-end note'),
});

const outputSchema = {
  ...responseShape,
  from: z.number().int().optional().describe('the older version compared (0: the empty document)'),
  to: z.number().int().optional().describe('the newer version compared'),
  from_modified: z.string().optional(),
  to_modified: z.string().optional(),
  added: z.number().int().optional().describe('lines added in the whole difference'),
  removed: z.number().int().optional().describe('lines removed in the whole difference'),
  hunks: z.array(hunkSchema).optional().describe('the changed regions in order; empty when the versions are the same'),
  total_hunks: z.number().int().optional(),
  truncated: z
    .boolean()
    .optional()
    .describe('true when only the first hunks fitted in the answer (read both versions with mark_fetch)'),
  binary: z.boolean().optional().describe('true when a version is not text, so no line difference is shown'),
  body: z.string().optional().describe("the world's explanation when it did not answer ok"),
};

/** The tool with its bounds as a parameter, so tests can reach them with small documents. */
export function makeDiffTool(bounds: Readonly<DiffBounds>) {
  return defineTool({
    name: 'mark_diff',
    title: 'Compare two versions',
    description: describe(
      'Show what changed between two versions of a document as a unified diff (by default the current version against the one before it), with how many lines were added and removed.',
      'Use it to review an edit or to see what changed since the version you last read; mark_versions lists the versions.',
      `Long differences are cut to whole hunks within ${Math.round(bounds.maxPatchBytes / 1024)} KiB (truncated: true).`,
    ),
    inputSchema,
    outputSchema,
    readOnly: true,
    openWorld: false,
    handler: async (args, ctx) => diff(ctx, args, bounds),
  });
}

export const markDiff = makeDiffTool(defaultDiffBounds);

type DiffArgs = { url: string; from?: number | undefined; to?: number | undefined; context?: number | undefined };

async function diff(ctx: ToolContext, args: DiffArgs, bounds: Readonly<DiffBounds>): Promise<ToolResult> {
  const target = urlArgument(ctx, args.url);
  if (!target.ok) return target.error;
  const context = args.context ?? defaultContext;
  const { world, path } = target.value;
  const docUrl = qualifiedWorldUrl(world, path);
  const pair = await versionPair(ctx, world, path, args);
  if (!pair.ok) return pair.error;
  const { from, to } = pair;
  // `from` is the older version (the schema says so): a reversed diff reads as the opposite edit (docs/decisions.md).
  if (from > to)
    return toolError(
      `from (v${from}) is newer than to (v${to}): from is the older version; swap them (from ${to}, to ${from}) to see what changed from v${to} to v${from}`,
    );
  const older = from === 0 ? emptyVersion : await readVersion(ctx, world, path, from);
  if (!older.ok) return older.error;
  const newer = await readVersion(ctx, world, path, to);
  if (!newer.ok) return newer.error;
  const identity = {
    status: 'ok',
    url: docUrl,
    metadata: {},
    from,
    to,
    ...(older.modified === undefined ? {} : { from_modified: older.modified }),
    ...(newer.modified === undefined ? {} : { to_modified: newer.modified }),
  };
  const head = `status: ok\nfrom: ${from}\nto: ${to}\n`;
  if (older.binary || newer.binary)
    return structuredResult(`${head}binary: true\n\nnot a text document: no line difference to show\n`, {
      ...identity,
      binary: true,
    });
  const label = (version: number) => (version === 0 ? '/dev/null' : `${docUrl}/v${version}`);
  const result = await diffVersions(
    { label: label(from), text: older.text },
    { label: label(to), text: newer.text },
    context,
    bounds,
  );
  if (result.kind === 'too-complex')
    return toolError(
      `diff failed: v${from} and v${to} differ too much to compare within ${bounds.timeoutMs / 1000} s; read them with mark_fetch ${docUrl}/v<N>`,
    );
  let text = `${head}added: ${result.added}\nremoved: ${result.removed}\nhunks: ${result.total_hunks}\n`;
  if (result.truncated)
    text += `truncated: true (${result.hunks.length} of ${result.total_hunks} hunks shown; read both versions with mark_fetch)\n`;
  text += result.total_hunks === 0 ? '\n(no differences)\n' : `\n${result.patch}`;
  const { kind: _kind, patch: _patch, ...facts } = result;
  return structuredResult(text, { ...identity, ...facts });
}

type Pair = { ok: true; from: number; to: number } | { ok: false; error: ToolResult };

/**
 * The versions to compare. Both given: as given (a missing one is then the
 * world's not-found). Otherwise the world's VERSIONS answer names the current
 * version and the kept ones, so "the one before" skips versions that retention
 * pruned, and a version asked for past the current one is refused by name.
 */
async function versionPair(ctx: ToolContext, world: string, path: string, args: DiffArgs): Promise<Pair> {
  if (args.from !== undefined && args.to !== undefined) return { ok: true, from: args.from, to: args.to };
  const answer = await readWorld(ctx, 'diff', world, { verb: 'VERSIONS', path });
  if (!answer.ok) return answer;
  const response = answer.value;
  if (response.status !== 'ok') return { ok: false, error: worldAnswer(qualifiedWorldUrl(world, path), response) };
  const kept = parseVersions(bodyText(response.body)).map((v) => v.version);
  const current = kept[0];
  if (current === undefined) return { ok: false, error: toolError('diff failed: the document has no versions') };
  // Checked before the order of the two: from 5 on a document at v2 is no swapped pair, v5 does not exist.
  const beyond = beyondCurrent(qualifiedWorldUrl(world, path), current, args);
  if (beyond !== undefined) return { ok: false, error: beyond };
  const to = args.to ?? current;
  const from = args.from ?? kept.find((version) => version < to) ?? 0;
  return { ok: true, from, to };
}

/** A version asked for that the document has not reached yet, said so, with where to see the ones it has. */
function beyondCurrent(url: string, current: number, args: DiffArgs): ToolResult | undefined {
  for (const name of ['from', 'to'] as const) {
    const version = args[name];
    if (version !== undefined && version > current)
      return toolError(
        `${name} (v${version}) is beyond the current version (v${current}) of ${url}: there is no v${version} yet; mark_versions lists its versions`,
      );
  }
  return undefined;
}

type Version = { ok: true; text: string; binary: boolean; modified?: string } | { ok: false; error: ToolResult };

const emptyVersion: Version = { ok: true, text: '', binary: false };

async function readVersion(ctx: ToolContext, world: string, path: string, version: number): Promise<Version> {
  const versionPath = `${path.replace(/\/+$/, '')}/v${version}`;
  const answer = await readWorld(ctx, 'diff', world, { verb: 'FETCH', path: versionPath });
  if (!answer.ok) return answer;
  const response = answer.value;
  if (response.status !== 'ok')
    return { ok: false, error: worldAnswer(qualifiedWorldUrl(world, versionPath), response) };
  const modified = response.metadata.modified;
  return {
    ok: true,
    text: bodyText(response.body),
    binary: isBinaryBody(response.body),
    ...(modified === undefined ? {} : { modified }),
  };
}

/** A world's own status (a pruned version, a missing document) is an answer, as mark_fetch gives it. */
function worldAnswer(url: string, response: MarkResponse): ToolResult {
  return structuredResult(formatToolResult(response, ['version', 'modified']), {
    ...responseFields(url, response),
    body: bodyText(response.body),
  });
}
