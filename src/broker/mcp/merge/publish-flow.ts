import type { Metadata } from '../../../protocol/metadata.ts';
import type { MarkResponse } from '../../../protocol/response.ts';
import { WorldGatewayError } from '../../worlds/gateway.ts';
import { bodyText } from '../body-text.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { formatToolResult } from '../format-tool-result.ts';
import type { Outcome } from '../tool-input.ts';
import {
  agentMessage,
  isOutcomeUnknown,
  structuredResult,
  toolError,
  toolErrorText,
  ToolStepError,
} from '../tool-result.ts';
import { qualifiedWorldUrl } from '../go-format.ts';
import { responseFields } from '../structured.ts';
import { diff3 } from './diff3.ts';

/**
 * mark_publish's two conflict modes (Go broker `mcp_tools_write.go`,
 * Go `client/merge.Candidate`). `fail` forwards the world's answer verbatim. `merge`
 * (the default) answers a conflict with a merge candidate built by diff3 of
 * base (the version the caller edited), ours (the caller's body) and theirs
 * (the current head), and never publishes it: line-disjoint is not meaning-
 * disjoint, so the agent reviews it and republishes at `publish-at-version`.
 *
 * Both modes never resend a write whose answer was lost: they read the head,
 * and a head that is exactly this submission counts as published.
 */
export type Submission = { world: string; path: string; body: string; expectedVersion: number; metadata: Metadata };

const publishKeys = ['version', 'modified', 'server-version'] as const;

export async function publishFailOnConflict(ctx: ToolContext, sub: Submission): Promise<ToolResult> {
  const sent = await publishOnce(ctx, sub);
  return sent.ok ? written(sub, sent.value) : sent.error;
}

function written(sub: Submission, response: MarkResponse): ToolResult {
  return structuredResult(
    formatToolResult(response, publishKeys),
    responseFields(qualifiedWorldUrl(sub.world, sub.path), response),
  );
}

export async function publishWithMerge(ctx: ToolContext, sub: Submission): Promise<ToolResult> {
  const sent = await publishOnce(ctx, sub);
  if (!sent.ok) return sent.error;
  const response = sent.value;
  if (response.status !== 'conflict') return written(sub, response);
  try {
    return await mergeCandidate(ctx, sub);
  } catch (error) {
    return error instanceof StepError
      ? stepFailure(sub.world, error.step, error.cause)
      : stepFailure(sub.world, 'merge', error);
  }
}

async function mergeCandidate(ctx: ToolContext, sub: Submission): Promise<ToolResult> {
  const head = await fetchDoc(ctx, sub.world, sub.path, 'fetch current');
  // A conflict with our own earlier attempt (its answer lost) is a success, not a merge.
  if (isOurSubmission(sub, head)) return publishedAt(sub, head);
  // No version after the head exists to merge from: the base fetch would only answer not-found.
  if (head.version > 0 && sub.expectedVersion > head.version)
    return toolError(
      `publish failed: expected_version ${sub.expectedVersion} is newer than the current version ${head.version} of ` +
        `${qualifiedWorldUrl(sub.world, sub.path)}: fetch the document, apply your change to it and publish with ` +
        `expected_version ${head.version}`,
    );
  let base = '';
  if (sub.expectedVersion > 0) {
    const step = `fetch base v${sub.expectedVersion}`;
    base = (await fetchDoc(ctx, sub.world, `${sub.path.replace(/\/+$/, '')}/v${sub.expectedVersion}`, step)).body;
  }
  // Without a real head version the follow-up publish would turn into a create.
  if (head.version <= 0) throw new StepError('fetch current', new ToolStepError('missing or invalid version metadata'));
  const merged = diff3(base, sub.body, head.body);
  const text =
    'status: merge-candidate\n' +
    `your-version: ${sub.expectedVersion}\n` +
    `current-version: ${head.version}\n` +
    `publish-at-version: ${head.version}\n` +
    `has-markers: ${merged.conflict}\n\n` +
    merged.body;
  return structuredResult(text, {
    status: 'merge-candidate',
    url: qualifiedWorldUrl(sub.world, sub.path),
    metadata: {},
    merge: {
      your_version: sub.expectedVersion,
      current_version: head.version,
      publish_at_version: head.version,
      has_markers: merged.conflict,
      body: merged.body,
    },
  });
}

type Doc = { response: MarkResponse; body: string; version: number };

class StepError extends Error {
  override readonly name = 'StepError';
  readonly step: string;
  constructor(step: string, cause: unknown) {
    super(`${step}: ${agentMessage(cause)}`, { cause });
    this.step = step;
  }
}

/**
 * The PUBLISH, sent once: the world's answer, or the tool's when it failed. A write whose answer was
 * lost is never resent; a head that is exactly this submission counts as published.
 */
async function publishOnce(ctx: ToolContext, sub: Submission): Promise<Outcome<MarkResponse>> {
  try {
    return { ok: true, value: await sendPublish(ctx, sub) };
  } catch (error) {
    const landed = isOutcomeUnknown(error) ? await landedHead(ctx, sub) : null;
    // The PUBLISH itself is no step of its own: named, it read `publish failed: publish: …`.
    return { ok: false, error: landed ?? toolError(toolErrorText('publish', sub.world, error)) };
  }
}

function sendPublish(ctx: ToolContext, sub: Submission): Promise<MarkResponse> {
  const metadata = { ...sub.metadata, 'expected-version': String(sub.expectedVersion) };
  return ctx.gateway.write(sub.world, ctx.identity, {
    verb: 'PUBLISH',
    path: sub.path,
    metadata,
    body: sub.body,
    signal: ctx.signal,
  });
}

/** Reads without a token (the gateway's read path); a world with read-auth on the path answers unauthorized. */
async function fetchDoc(ctx: ToolContext, world: string, path: string, step: string): Promise<Doc> {
  let response: MarkResponse;
  try {
    response = await ctx.gateway.read(world, { verb: 'FETCH', path, signal: ctx.signal });
  } catch (error) {
    throw new StepError(step, error);
  }
  if (response.status !== 'ok') throw new StepError(step, new ToolStepError(`status ${response.status}`));
  return { response, body: bodyText(response.body), version: versionOf(response, step) };
}

function versionOf(response: MarkResponse, step: string): number {
  const raw = response.metadata.version;
  if (raw === undefined || raw === '') return 0;
  if (!/^[+-]?\d+$/.test(raw))
    throw new StepError(step, new ToolStepError(`response metadata "version" = "${raw}" is not an integer`));
  return Number(raw);
}

/** The head is this submission: one version past the expected one, same body, same value for every key we sent. */
function isOurSubmission(sub: Submission, head: Doc): boolean {
  if (head.version !== sub.expectedVersion + 1 || head.body !== sub.body) return false;
  return Object.entries(sub.metadata).every(
    ([key, value]) => (head.response.metadata[key] ?? '').trim() === value.trim(),
  );
}

async function landedHead(ctx: ToolContext, sub: Submission): Promise<ToolResult | null> {
  try {
    const head = await fetchDoc(ctx, sub.world, sub.path, 'fetch current');
    return isOurSubmission(sub, head) ? publishedAt(sub, head) : null;
  } catch {
    return null;
  }
}

function publishedAt(sub: Submission, head: Doc): ToolResult {
  const metadata: Metadata = { version: String(head.version) };
  const modified = head.response.metadata.modified;
  if (modified !== undefined) metadata.modified = modified;
  return written(sub, { status: 'ok', metadata, body: new Uint8Array(0) });
}

/**
 * A merge step after the PUBLISH (`fetch current`, `fetch base vN`, `merge`) failed. Refusals keep their
 * own sentence; anything else is `publish failed: <step>: <reason>` as the reference words it.
 */
function stepFailure(world: string, step: string, error: unknown): ToolResult {
  const own =
    error instanceof WorldGatewayError &&
    ['ERR_WORLD_NOT_FOUND', 'ERR_WRITE_DENIED', 'ERR_EMAIL_UNVERIFIED', 'ERR_WRITE_READ_PROTECTED'].includes(
      error.code,
    );
  if (own) return toolError(toolErrorText('publish', world, error));
  return toolError(`publish failed: ${step}: ${agentMessage(error)}`);
}
