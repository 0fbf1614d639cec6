import { z } from 'zod';
import {
  collectCorpus,
  defaultCorpusLimits,
  diagnose,
  DoctorBusyError,
  DoctorRuns,
  type DoctorReport,
  findingKinds,
  maxNearComparisons,
  nearDuplicatesStopped,
  renderReport,
} from '../../knowledge/doctor/index.ts';
import { WorldDirectory } from '../../graph/index.ts';
import { defaultHubWorld } from '../../hub-world.ts';
import type { WorldInfo } from '../../worlds/gateway.ts';
import { worldInArgument } from '../../worlds/world-aliases.ts';
import { optionalInteger, optionalString, wrongType } from '../args.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { defineTool } from '../run-tool.ts';
import { structuredResult, toolError, unknownWorldText } from '../tool-result.ts';
import { severities } from '../../knowledge/policy.ts';
import { countText } from '../../count-text.ts';
import { describe } from './descriptions.ts';

const inputSchema = {
  worlds: optionalString(
    'worlds',
    'comma list of worlds to examine, each its name or an address from mark_worlds (default: every world)',
  ),
  kinds: optionalString('kinds', `comma list of finding kinds to report (default: all): ${findingKinds.join(', ')}`),
  similarity: z
    .number({ error: wrongType('similarity', 'a number') })
    .min(0.5, { error: 'similarity must be from 0.5 to 1' })
    .max(1, { error: 'similarity must be from 0.5 to 1' })
    .optional()
    .describe('how alike two documents must be to count as near duplicates, 0.5 to 1 (default 0.8)'),
  limit: optionalInteger('limit', 'findings per page, 1 to 500 (default 50)', { min: 1, max: 500 }),
  cursor: optionalString('cursor', 'next-cursor from the previous page'),
};

const findingSchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('exact-duplicate'), hash: z.string(), urls: z.array(z.string()) }),
  z.object({
    kind: z.literal('near-duplicate'),
    similarity: z.number().describe('0.5 to 1'),
    urls: z.array(z.string()),
  }),
  z.object({
    kind: z.literal('policy'),
    url: z.string(),
    rule: z.string(),
    severity: z.enum(severities),
    problem: z.string(),
  }),
  z.object({ kind: z.literal('untagged'), url: z.string() }),
  z.object({ kind: z.literal('broken-link'), url: z.string(), target: z.string().describe('the missing document') }),
  z.object({ kind: z.literal('orphan'), url: z.string() }),
]);

const outputSchema = {
  status: z.enum(['ok', 'partial']).describe('partial: some documents were not read (see not_examined)'),
  worlds: z.number().int(),
  documents: z.number().int().describe('documents read'),
  total: z.number().int().describe('findings in all pages'),
  findings: z.array(findingSchema).describe('the findings of this page'),
  next_cursor: z.string().optional().describe('pass as cursor for the next page'),
  not_examined: z.array(z.object({ world: z.string(), reason: z.string() })),
};

export const markDoctor = defineTool({
  name: 'mark_doctor',
  title: 'Check the knowledge base',
  description: describe(
    'Report what needs care across the worlds you may read: exact and near duplicate documents, documents that break the publishing policy, untagged documents that mark_lookup cannot find, broken mark:// links and orphans nothing links to.',
    `Reads up to ${countText(defaultCorpusLimits.maxDocuments)} documents and ${defaultCorpusLimits.maxBytes / (1024 * 1024)} MiB within ${defaultCorpusLimits.timeMs / 1000} s, and scores at most ${countText(maxNearComparisons)} pairs for near duplicates; status: partial names the worlds it could not cover, or says where the near-duplicate search stopped. Paged: pass next-cursor to get the next page; later pages come from the report the first call made (kept 10 minutes), so they cost nothing and agree with it.`,
  ),
  inputSchema,
  outputSchema,
  readOnly: true,
  openWorld: false,
  handler: async (args, ctx) => doctor(ctx, args),
});

type DoctorArgs = { worlds?: string; kinds?: string; similarity?: number; limit?: number; cursor?: string };

/** For a context without the knowledge layer (tests of other tools): one per process. */
const processRuns = new DoctorRuns();

const startOver =
  'this report is no longer held (a report is kept 10 minutes, by the broker replica that made it, for the caller and arguments that asked for it): call mark_doctor again without cursor to start over';

async function doctor(ctx: ToolContext, args: DoctorArgs): Promise<ToolResult> {
  const limit = args.limit ?? 50;
  const cursor = args.cursor === undefined || args.cursor === '' ? undefined : parseCursor(args.cursor);
  if (cursor === null) return toolError('invalid cursor: pass the next-cursor of a previous page');
  const known = ctx.gateway.list();
  const wanted = commaList(args.worlds);
  const resolved = wanted.map((name) => worldInArgument(name, known));
  const unknownAt = resolved.indexOf(undefined);
  if (unknownAt !== -1) return toolError(unknownWorldText(wanted[unknownAt] as string, known));
  const kinds = commaList(args.kinds);
  const badKind = kinds.find((kind) => !(findingKinds as readonly string[]).includes(kind));
  if (badKind !== undefined) return toolError(`unknown finding kind "${badKind}" (kinds: ${findingKinds.join(', ')})`);
  const chosen = new Set(resolved);
  const worlds = wanted.length === 0 ? known : known.filter((world) => chosen.has(world));
  const runs = ctx.knowledge?.doctorRuns ?? processRuns;
  const subject = ctx.identity.subject;
  // What makes two reports the same: a cursor serves only pages of a report made for these arguments.
  const input = JSON.stringify({
    worlds: worlds.map((world) => world.name),
    kinds: [...new Set(kinds)].sort(),
    similarity: args.similarity ?? 0.8,
  });
  let report: DoctorReport;
  let id: string | undefined;
  if (cursor !== undefined) {
    const held = runs.held(cursor.id, subject, input);
    if (held === undefined) return toolError(startOver);
    report = held;
    id = cursor.id;
  } else {
    try {
      report = await runs.run(subject, () => makeReport(ctx, worlds, known, kinds, args.similarity), ctx.signal);
    } catch (error) {
      if (error instanceof DoctorBusyError) return toolError(error.message);
      throw error;
    }
  }
  const offset = cursor?.offset ?? 0;
  const shown = report.findings.slice(offset, offset + limit);
  const next = offset + shown.length;
  let nextCursor: string | undefined;
  if (next < report.findings.length) nextCursor = `${id ?? runs.keep(subject, input, report)}.${next}`;
  return structuredResult(renderReport(report, { offset, limit, ...(nextCursor ? { nextCursor } : {}) }), {
    status: report.notExamined.length === 0 ? 'ok' : 'partial',
    worlds: report.worlds,
    documents: report.documents,
    total: report.findings.length,
    findings: shown,
    ...(nextCursor ? { next_cursor: nextCursor } : {}),
    not_examined: [...report.notExamined],
  });
}

/** `<report id>.<offset>`; null when the text is not one. */
function parseCursor(text: string): { id: string; offset: number } | null {
  const match = /^([A-Za-z0-9_-]{16})\.(\d{1,9})$/.exec(text);
  return match === null ? null : { id: match[1]!, offset: Number(match[2]) };
}

async function makeReport(
  ctx: ToolContext,
  worlds: readonly WorldInfo[],
  known: readonly WorldInfo[],
  kinds: readonly string[],
  similarity: number | undefined,
): Promise<DoctorReport> {
  const hub = ctx.knowledge?.standard.hub ?? defaultHubWorld;
  const corpus = await collectCorpus(ctx.gateway, worlds, { hub, signal: ctx.signal });
  const policy = await ctx.knowledge?.standard.policyState();
  const diagnosis = diagnose({
    documents: corpus.documents,
    policy: policy?.kind === 'in-force' ? policy.policy : undefined,
    hub,
    directory: new WorldDirectory(known),
    completeWorlds: corpus.completeWorlds,
    judgeOrphans: known.every((world) => corpus.completeWorlds.has(world.name)),
    nearThreshold: similarity ?? 0.8,
  });
  const findings = diagnosis.findings.filter((finding) => kinds.length === 0 || kinds.includes(finding.kind));
  // A policy the broker cannot read (the hub never answered, or hides it) is not "no policy": no
  // document was judged by it, so the report says so rather than showing no policy findings.
  if (policy?.kind === 'unavailable' && (kinds.length === 0 || kinds.includes('policy')))
    corpus.notExamined.push({ world: hub, reason: policy.reason });
  // A search cut short proves nothing about the pairs it did not score: the report is partial.
  if (!diagnosis.nearDuplicatesComplete && (kinds.length === 0 || kinds.includes('near-duplicate')))
    corpus.notExamined.push({ world: worlds.map((world) => world.name).join(', '), reason: nearDuplicatesStopped });
  return { worlds: worlds.length, documents: corpus.documents.length, findings, notExamined: corpus.notExamined };
}

function commaList(text: string | undefined): string[] {
  return (text ?? '')
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
