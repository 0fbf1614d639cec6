import { optionalBoolean, optionalInteger, optionalMetadata, requiredString, versionBounds } from '../args.ts';
import { bodyText } from '../body-text.ts';
import { countText } from '../../count-text.ts';
import type { ToolContext, ToolDefinition, ToolResult } from '../definitions.ts';
import { formatToolResult } from '../format-tool-result.ts';
import { crawlBounds, CrawlError, crawlForIndex, type CrawlBounds, type CrawlResult } from '../hash-index/crawl.ts';
import { mergeContentIndex, parseContentIndex, renderContentIndex } from '../../../protocol/render/content-index.ts';
import { defineTool } from '../run-tool.ts';
import { readWorld, urlArgument, writeWorld, type Outcome } from '../tool-input.ts';
import { Status } from '../../../protocol/status.ts';
import { failureDetail } from '../../search/index.ts';
import { structuredResult, toolError } from '../tool-result.ts';
import { z } from 'zod';
import type { MarkResponse } from '../../../protocol/response.ts';
import { qualifiedWorldUrl } from '../go-format.ts';
import { responseFields, responseShape, writeShape } from '../structured.ts';
import { checkedWrite, rendered } from '../checked-write.ts';
import type { ToolUrl } from '../tool-url.ts';
import { gateWrite, writeMetadata } from '../write-gate.ts';
import { agentManifestPath } from './discover.ts';
import { describe, exampleIndexUrl, hubWorld } from './descriptions.ts';

const inputSchema = {
  source: requiredString('source', 'world or directory to index, e.g. mark://team-a/'),
  target: requiredString('target', `document to publish the index to, usually on ${hubWorld}, e.g. ${exampleIndexUrl}`),
  expected_version: optionalInteger(
    'expected_version',
    "the target's current version to update it (its rows for other servers are kept), or 0 to create it (default 0)",
    { ...versionBounds, message: 'expected_version must be non-negative' },
  ),
  dry_run: optionalBoolean('dry_run', 'return the index without publishing it (default false)'),
  force: optionalBoolean(
    'force',
    'publish even when the target world has no agent manifest, or answers its manifest with an error status (default false)',
  ),
  metadata: optionalMetadata(
    'metadata',
    "publisher metadata stored with the index document, as for mark_publish: tags, importance and title meet the org's publishing policy. agent is always set to you.",
  ),
  confirm: optionalBoolean(
    'confirm',
    "true to publish although the org's publishing policy asked for confirmation on an earlier attempt",
  ),
};

const outputSchema = {
  ...responseShape,
  status: z.string().describe("dry-run, or the target world's answer to the publish (created, ok, conflict, ...)"),
  url: z.string().describe('the target document'),
  source: z.string().describe('the server the index is for, as its rows name it'),
  documents: z.number().int().describe('documents indexed'),
  entries: z
    .array(z.object({ hash: z.string(), path: z.string() }))
    .describe('the content hash and path of every document indexed'),
  warnings: z.array(z.string()),
  index: z.string().optional().describe('the index document, on a dry run'),
  policy_warnings: writeShape.policy_warnings,
};

type IndexArgs = {
  source: string;
  target: string;
  expected_version?: number | undefined;
  dry_run?: boolean | undefined;
  force?: boolean | undefined;
  metadata?: Record<string, string> | undefined;
  confirm?: boolean | undefined;
};

/** The tool with its crawl bounds as a parameter, so tests can reach them with small worlds. */
export function makeIndexTool(bounds: Readonly<CrawlBounds>): ToolDefinition {
  return defineTool({
    name: 'mark_index',
    title: 'Index content hashes',
    description: describe(
      'Build a hash index of a world or directory (the content hash and path of every document) and publish it to a target document, usually on a hub world, so mark_resolve can find content by hash.',
      'dry_run=true returns the index without publishing. The target world must publish an agent manifest unless force=true.',
      'The publishing policy is checked as for mark_publish: pass metadata (e.g. tags) to meet its rules.',
      `An index is published only when every document was read; the crawl stops at ${countText(bounds.maxDocuments)} documents.`,
    ),
    inputSchema,
    outputSchema,
    readOnly: false,
    // Replaces the index document, and metadata.retention deletes versions as for mark_publish;
    // a repeat at the same expected_version is a conflict.
    destructive: true,
    idempotent: true,
    openWorld: false,
    handler: async (args, ctx) => indexWorld(ctx, args, bounds),
  });
}

export const markIndex = makeIndexTool(crawlBounds);

async function indexWorld(ctx: ToolContext, args: IndexArgs, bounds: Readonly<CrawlBounds>): Promise<ToolResult> {
  const source = urlArgument(ctx, args.source, 'source');
  if (!source.ok) return source.error;
  const target = urlArgument(ctx, args.target, 'target');
  if (!target.ok) return target.error;
  const expectedVersion = args.expected_version ?? 0;
  const dryRun = args.dry_run === true;
  if (!dryRun) {
    const refused = gateWrite(ctx, 'index', target.value.world, target.value.path);
    if (refused) return refused;
  }
  const manifests = await checkManifests(ctx, source.value.world, target.value.world, dryRun, args.force === true);
  if (!manifests.ok) return manifests.error;
  let crawl: CrawlResult;
  try {
    crawl = await crawlForIndex(ctx, source.value.world, source.value.path, bounds);
  } catch (error) {
    if (error instanceof CrawlError) return toolError(`crawl failed: ${error.message}`);
    throw error;
  }
  const warnings = [...manifests.warnings];
  if (crawl.truncated) warnings.push('warning: crawl bounds reached, some content may not be indexed');
  if (crawl.skipped.length > 0)
    warnings.push(`warning: crawl skipped ${crawl.skipped.length} entries, index is incomplete`);
  const sourceServer = `mark://${source.value.world}`;
  const body = renderContentIndex(sourceServer, ctx.now(), crawl.entries);
  const preamble = warnings.map((warning) => `${warning}\n`).join('');
  const targetUrl = qualifiedWorldUrl(target.value.world, target.value.path);
  const facts = {
    source: sourceServer,
    documents: crawl.entries.length,
    entries: crawl.entries.map((entry) => ({ hash: entry.hash, path: entry.path })),
    warnings,
  };
  if (dryRun)
    return structuredResult(
      `${preamble}Indexed ${crawl.entries.length} documents from ${sourceServer} (dry run, not published)\n\n${body}`,
      { status: 'dry-run', url: targetUrl, metadata: {}, ...facts, index: body },
    );
  // An index claims to be the whole truth about its source: a partial one must not replace a complete one.
  if (crawl.truncated || crawl.skipped.length > 0)
    return toolError('crawl incomplete; refusing to publish an authoritative index');
  const render = (response: MarkResponse): ToolResult => {
    const text = formatToolResult(response, ['version', 'modified']);
    return structuredResult(`${preamble}Indexed ${crawl.entries.length} documents from ${sourceServer}\n${text}`, {
      ...responseFields(targetUrl, response),
      ...facts,
    });
  };
  const publication = { expectedVersion, sourceServer, body, entries: crawl.entries, render };
  return publishIndex(ctx, target.value, publication, args);
}

type Checked = { ok: true; warnings: string[] } | { ok: false; error: ToolResult };

/**
 * A source without a manifest is a warning; a target without one blocks publishing unless forced.
 * Only the world saying so means "no manifest": a world that cannot be reached is reported as such
 * (forcing would not help), and any other answer is named, never read as a missing manifest.
 */
async function checkManifests(
  ctx: ToolContext,
  sourceWorld: string,
  targetWorld: string,
  dryRun: boolean,
  force: boolean,
): Promise<Checked> {
  const warnings: string[] = [];
  const source = await readManifest(ctx, sourceWorld, 'index (source manifest)');
  if (!source.ok) return source;
  if (source.value.kind === 'absent') warnings.push('warning: source server has no agent manifest');
  if (source.value.kind === 'unknown')
    warnings.push(`warning: could not check the source server's agent manifest: ${source.value.answer}`);
  if (dryRun) return { ok: true, warnings };
  const target = await readManifest(ctx, targetWorld, 'index (target manifest)');
  if (!target.ok) return target;
  if (target.value.kind === 'present') return { ok: true, warnings };
  // Without a manifest the target is not known to accept index publications: only force goes on.
  const [refusal, warning] =
    target.value.kind === 'unknown'
      ? [
          `could not check the target server's agent manifest at ${agentManifestPath}: ${target.value.answer}; nothing was published`,
          `warning: could not check the target server's agent manifest: ${target.value.answer} (force=true override)`,
        ]
      : [
          'target server has no agent manifest; cannot verify it accepts index publications. ' +
            `Use force=true to override, or publish a manifest at ${agentManifestPath} on the target.`,
          'warning: target server has no agent manifest (force=true override)',
        ];
  if (!force) return { ok: false, error: toolError(refusal) };
  warnings.push(warning);
  return { ok: true, warnings };
}

/** `absent` only when the world says there is none (not-found, archived); `unknown` carries any other answer's status and text. */
type ManifestState = { kind: 'present' } | { kind: 'absent' } | { kind: 'unknown'; answer: string };

async function readManifest(ctx: ToolContext, world: string, verb: string): Promise<Outcome<ManifestState>> {
  const answer = await readWorld(ctx, verb, world, { verb: 'FETCH', path: agentManifestPath });
  if (!answer.ok) return answer;
  const { status, body } = answer.value;
  if (status === Status.Ok) return { ok: true, value: { kind: 'present' } };
  // Archived is as definitive: the world holds no current manifest.
  if (status === Status.NotFound || status === Status.Archived) return { ok: true, value: { kind: 'absent' } };
  return {
    ok: true,
    value: { kind: 'unknown', answer: `the world answered ${status}${failureDetail(bodyText(body))}` },
  };
}

type IndexPublication = {
  expectedVersion: number;
  sourceServer: string;
  body: string;
  entries: Parameters<typeof mergeContentIndex>[2];
  /** The tool's result for the target world's answer to the publish. */
  render: (response: MarkResponse) => ToolResult;
};

/** The document stored (merged with the target's other rows on an update) is what the publishing policy checks. */
async function publishIndex(
  ctx: ToolContext,
  target: ToolUrl,
  { expectedVersion, sourceServer, body, entries, render }: IndexPublication,
  args: Pick<IndexArgs, 'metadata' | 'confirm'>,
): Promise<ToolResult> {
  let document = body;
  if (expectedVersion > 0) {
    // Updating: keep the other servers' rows, replace this source's.
    const existing = await readWorld(ctx, 'index (fetch existing)', target.world, { verb: 'FETCH', path: target.path });
    if (!existing.ok) return existing.error;
    if (existing.value.status !== 'ok') return toolError(`failed to fetch existing index: ${existing.value.status}`);
    const merged = mergeContentIndex(parseContentIndex(bodyText(existing.value.body)), sourceServer, entries);
    document = renderContentIndex(`mark://${target.world}`, ctx.now(), merged);
  }
  const stored = writeMetadata(ctx.identity, args.metadata);
  return checkedWrite(ctx, {
    verb: 'index',
    world: target.world,
    path: target.path,
    stored: { body: document, metadata: stored, scope: 'document', confirm: args.confirm === true, generated: true },
    write: () => {
      const metadata = { ...stored, 'expected-version': String(expectedVersion) };
      return rendered(
        writeWorld(ctx, 'index (publish)', target.world, {
          verb: 'PUBLISH',
          path: target.path,
          metadata,
          body: document,
        }),
        render,
      );
    },
  });
}
