import { metadataRules, type Scope, type Violation } from '../knowledge/policy-check.ts';
import type { ToolContext, ToolResult } from './definitions.ts';
import { toolError } from './tool-result.ts';

/**
 * The publishing policy applied to a write tool's submission (docs/knowledge.md
 * "Severities"): `block` refuses and lists each rule with its fix; `ask`
 * refuses until the caller repeats the call with `confirm: true`; `warn`
 * lets the write through and hands the warnings to the result. Without a
 * policy on the hub, writes pass untouched; while the broker cannot know the
 * policy (the hub never answered), every write is refused, retryably. A document the broker generates
 * (mark_graph_publish, mark_index) is checked like any other: the policy
 * governs the documents stored, whoever wrote their text (docs/decisions.md).
 */
export type PolicyGate = { refused: ToolResult } | { refused: null; notes: string };

export type GateSubmission = {
  world: string;
  path: string;
  body: string;
  metadata: Readonly<Record<string, string>>;
  scope: Scope;
  confirm: boolean;
  /** True when the broker rendered the body, so the caller can change only the metadata. */
  generated?: boolean;
};

export async function policyGate(ctx: ToolContext, verb: string, submission: GateSubmission): Promise<PolicyGate> {
  const standard = ctx.knowledge?.standard;
  if (standard === undefined) return { refused: null, notes: '' };
  const verdict = await standard.check(submission.world, submission.path, submission, submission.scope);
  if (verdict.kind === 'unavailable') return { refused: toolError(`${verb} refused: ${verdict.reason}`) };
  if (verdict.kind === 'none' || verdict.violations.length === 0) return { refused: null, notes: '' };
  const { violations, policyUrl } = verdict;
  const blocking = violations.filter((v) => v.severity === 'block');
  const asking = violations.filter((v) => v.severity === 'ask');
  if (blocking.length > 0 || (asking.length > 0 && !submission.confirm)) {
    const next =
      blocking.length > 0
        ? `Fix every rule marked block, then ${verb} again.`
        : `These rules ask for confirmation: fix them, or ${verb} again with confirm: true to go ahead as is.`;
    const generated = submission.generated === true ? generatedBodyAdvice(violations, policyUrl) : '';
    return {
      refused: toolError(
        `${verb} refused by the publishing policy (${policyUrl}):\n${violationLines(violations)}\n\n${next}${generated}`,
      ),
    };
  }
  const noted = violations.filter((v) => v.severity === 'warn' || v.severity === 'ask');
  return { refused: null, notes: `\npolicy-warnings: ${noted.length} (${policyUrl})\n${violationLines(noted)}\n` };
}

/**
 * The caller of a generating tool cannot follow a fix that edits the body: say which rules it can
 * meet (metadata) and who can resolve the others (the source documents, or the policy's owner).
 */
function generatedBodyAdvice(violations: readonly Violation[], policyUrl: string): string {
  const bodyRules = [...new Set(violations.filter((v) => !metadataRules.has(v.rule)).map((v) => v.rule))];
  if (bodyRules.length === 0) return '';
  return (
    `\nThe broker generates this document's body, so it cannot be edited here: rules on metadata are met with ` +
    `the metadata argument (e.g. tags). A finding in a title, path or link is fixed in the document it comes ` +
    `from; a rule the generated format itself breaks can only be relaxed by the owner of ${policyUrl} ` +
    `(set the severity of ${bodyRules.join(', ')} to ask or warn).`
  );
}

function violationLines(violations: readonly Violation[]): string {
  return violations.map((v) => `- ${v.rule} (${v.severity}): ${v.problem}. Fix: ${v.fix}.`).join('\n');
}

/** A successful write's text with the policy's warnings after it; an error result stays as it is. */
export function withPolicyNotes(result: ToolResult, notes: string): ToolResult {
  if (notes === '' || result.isError === true) return result;
  const structured = result.structured && { ...result.structured, policy_warnings: notes.trim() };
  return { ...result, text: `${result.text}${notes}`, ...(structured ? { structured } : {}) };
}
