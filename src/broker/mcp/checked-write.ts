import type { MarkResponse } from '../../protocol/response.ts';
import { maxBodyBytes } from '../../protocol/limits.ts';
import { documentOversize, fragmentOversize, oversizeRefusal, type OversizeWording } from './body-limit.ts';
import type { ToolContext, ToolResult } from './definitions.ts';
import { policyGate, withPolicyNotes, type GateSubmission, type PolicyGate } from './policy-gate.ts';
import type { Outcome } from './tool-input.ts';
import { toolError } from './tool-result.ts';

/** What a write stores, as the publishing policy reads it (policy-gate.ts). */
export type StoredContent = Omit<GateSubmission, 'world' | 'path'>;

export type CheckedWrite = {
  /** Names the write in a policy refusal ("publish refused by the publishing policy ..."). */
  verb: string;
  world: string;
  path: string;
  /** Null when the write stores no new content for the policy to read (mark_archive; mark_publish's empty body, the protocol's unarchive). */
  stored: StoredContent | null;
  /**
   * How a stored body over Mark's body limit is refused (body-limit.ts); by default as the caller's
   * own text, a document (mark_publish) or a fragment (mark_append) by `stored.scope`. A tool that
   * generates its document says what it generated and how to make it smaller.
   */
  oversize?: OversizeWording;
  /**
   * Sends the write and renders its result. `ok: false` is a step that got no answer from the world
   * (its version read, or the write itself failing to arrive): its error is answered and the cached
   * copy is kept, as nothing is known to have changed.
   */
  write: () => Promise<Outcome<ToolResult>>;
};

/**
 * The one sequence of every write tool that changes a document (mark_publish, mark_append,
 * mark_graph_publish, mark_index, mark_archive), run once its arguments and the writer check (write-gate.ts)
 * have passed: a body over Mark's body limit first, refused before anything is sent, as no world can
 * store it (body-limit.ts); then the publishing policy, so a refused submission never reaches the
 * world; then the write; then the knowledge cache forgets its copy of the document, so the next read
 * of a cached well-known document (world.md, the standard) sees the write at once; then the policy's
 * warnings go after a successful result (docs/knowledge.md "Severities").
 */
export async function checkedWrite(ctx: ToolContext, checked: CheckedWrite): Promise<ToolResult> {
  const { verb, world, path, stored } = checked;
  if (stored !== null) {
    // UTF-8 bytes, as the world counts the limit, not characters.
    const bytes = Buffer.byteLength(stored.body);
    const wording = checked.oversize ?? (stored.scope === 'fragment' ? fragmentOversize : documentOversize);
    if (bytes > maxBodyBytes) return toolError(oversizeRefusal(verb, bytes, wording));
  }
  const gate: PolicyGate =
    stored === null ? { refused: null, notes: '' } : await policyGate(ctx, verb, { world, path, ...stored });
  if (gate.refused) return gate.refused;
  const written = await checked.write();
  if (!written.ok) return written.error;
  ctx.knowledge?.documents.invalidate(world, path);
  return withPolicyNotes(written.value, gate.notes);
}

/**
 * A `write` step of the usual shape: the world's answer rendered as the tool's result, or the
 * outcome's error as it is when the write got no answer.
 */
export async function rendered(
  sent: Promise<Outcome<MarkResponse>>,
  render: (response: MarkResponse) => ToolResult,
): Promise<Outcome<ToolResult>> {
  const answer = await sent;
  return answer.ok ? { ok: true, value: render(answer.value) } : answer;
}
