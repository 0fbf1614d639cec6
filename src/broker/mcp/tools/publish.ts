import {
  optionalBoolean,
  optionalChoice,
  optionalMetadata,
  requiredInteger,
  requiredString,
  documentUrlDescription,
  versionBounds,
} from '../args.ts';
import { bodyLimitText } from '../../../protocol/limits.ts';
import { checkedWrite } from '../checked-write.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { publishFailOnConflict, publishWithMerge } from '../merge/publish-flow.ts';
import { defineTool } from '../run-tool.ts';
import { urlArgument } from '../tool-input.ts';
import { toolError } from '../tool-result.ts';
import { gateWrite, writeMetadata } from '../write-gate.ts';
import { describe, publishingPolicyPlace } from './descriptions.ts';
import { writeShape } from '../structured.ts';

const inputSchema = {
  url: requiredString('url', `${documentUrlDescription} (must end in .md)`),
  body: requiredString(
    'body',
    `the complete markdown of the new version, at most ${bodyLimitText} of UTF-8 (an empty body unarchives an archived document)`,
  ),
  expected_version: requiredInteger(
    'expected_version',
    'the version you last read, or 0 to create a document that must not exist yet',
    versionBounds,
  ),
  on_conflict: optionalChoice(
    'on_conflict',
    ['merge', 'fail'],
    'merge (default): answer a conflict with a merge candidate to review and republish; fail: return the conflict as is',
  ),
  metadata: optionalMetadata(
    'metadata',
    'publisher metadata stored with the version; values become strings. tags (comma list) and importance (0 to 1) rank mark_lookup; title; rel-<relation> (comma list of paths) declares typed links; retention (a positive integer) permanently deletes all but the newest N versions, so ask before using it. agent is always set to you.',
  ),
  confirm: optionalBoolean(
    'confirm',
    "true to publish although the org's publishing policy asked for confirmation on an earlier attempt",
  ),
};

export const markPublish = defineTool({
  name: 'mark_publish',
  title: 'Publish a document',
  description: describe(
    'Create or replace a document with a new version.',
    'expected_version is required: the version you last read, or 0 to create.',
    'If someone published in between, the default on_conflict=merge does not overwrite: it answers status: merge-candidate with a merged body (git-style markers where both sides changed the same lines).',
    'Review and fix that body, then publish it with expected_version set to the returned publish-at-version. on_conflict=fail returns the conflict as is.',
    'To add to the end of a document without rewriting it, use mark_append.',
    `A document holds at most ${bodyLimitText}: a larger body is refused before anything is sent; split it into several documents and link them.`,
    `The org's publishing policy (${publishingPolicyPlace}) is checked first: a refusal lists each rule broken and how to fix it.`,
  ),
  inputSchema,
  outputSchema: writeShape,
  readOnly: false,
  // metadata.retention permanently deletes versions. A repeat stores nothing more: the same body at the same
  // expected_version is recognised as the earlier write, another body is a conflict (merge/publish-flow.ts).
  destructive: true,
  idempotent: true,
  openWorld: false,
  handler: async (args, ctx) => publish(ctx, args),
});

type PublishArgs = {
  url: string;
  body: string;
  expected_version: number;
  on_conflict?: 'merge' | 'fail' | undefined;
  metadata?: Record<string, string> | undefined;
  confirm?: boolean | undefined;
};

async function publish(ctx: ToolContext, args: PublishArgs): Promise<ToolResult> {
  const target = urlArgument(ctx, args.url);
  if (!target.ok) return target.error;
  if (args.expected_version < 0) return toolError('expected_version must be >= 0');
  const mode = args.on_conflict ?? 'merge';
  const { world, path } = target.value;
  const refused = gateWrite(ctx, 'publish', world, path);
  if (refused) return refused;
  const submission = {
    world,
    path,
    body: args.body,
    expectedVersion: args.expected_version,
    metadata: writeMetadata(ctx.identity, args.metadata),
  };
  return checkedWrite(ctx, {
    verb: 'publish',
    world,
    path,
    // An empty body is the protocol's unarchive: it brings the archived version back and stores nothing
    // new, so the policy has nothing to read (a body without an H1 or tags would refuse every unarchive).
    stored:
      args.body === ''
        ? null
        : { body: args.body, metadata: submission.metadata, scope: 'document', confirm: args.confirm === true },
    // Both flows answer every failure with a result (merge/publish-flow.ts): any answer forgets the cached copy.
    write: async () => ({
      ok: true,
      value: await (mode === 'fail' ? publishFailOnConflict(ctx, submission) : publishWithMerge(ctx, submission)),
    }),
  });
}
