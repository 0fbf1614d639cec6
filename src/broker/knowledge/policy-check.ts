import { githubSlug, MarkdownDocument } from '../../markdown/index.ts';
import { documentShape, firstSentence } from './document-shape.ts';
import type { Policy, PolicyRule, RuleId, RuleSettings, Severity } from './policy.ts';
import { findSecrets } from './secret-shapes.ts';

/**
 * The mechanically checkable part of the org's publishing standard, applied to
 * one submission (docs/knowledge.md, "The policy format"). A whole document is checked by
 * every rule; an appended fragment only by the rules that make sense for a
 * piece of a document (banned characters, secrets), since its H1, summary and
 * metadata belong to the document it is added to. Those two rules read the
 * metadata's keys and values as well as the body: both are stored and shown.
 */
export type Submission = { body: string; metadata: Readonly<Record<string, string>> };
export type Scope = 'document' | 'fragment';

export type Violation = { rule: RuleId; severity: Severity; problem: string; fix: string };

const fragmentRules: ReadonlySet<RuleId> = new Set(['banned-characters', 'no-secrets']);

/** The rules that read only the metadata: a caller meets them through the write's metadata, whoever wrote the body. */
export const metadataRules: ReadonlySet<RuleId> = new Set(['required-tags', 'importance', 'required-fields']);

export function checkSubmission(policy: Policy, submission: Submission, scope: Scope): Violation[] {
  const shape = documentShape(new MarkdownDocument(submission.body));
  const violations: Violation[] = [];
  for (const rule of policy.rules) {
    if (scope === 'fragment' && !fragmentRules.has(rule.id)) continue;
    for (const finding of check(rule, submission, shape))
      violations.push({ rule: rule.id, severity: rule.severity, ...finding });
  }
  return violations;
}

type Finding = { problem: string; fix: string };
type Shape = ReturnType<typeof documentShape>;

function check(rule: PolicyRule, submission: Submission, shape: Shape): Finding[] {
  switch (rule.id) {
    case 'required-tags':
      return requiredTags(rule.setting, submission.metadata.tags ?? '');
    case 'importance':
      return importance(rule.setting, submission.metadata.importance);
    case 'required-fields':
      return rule.setting
        .filter((field) => (submission.metadata[field] ?? '').trim() === '')
        .map((field) => ({ problem: `metadata.${field} is missing`, fix: `set metadata.${field}` }));
    case 'h1-first':
      return shape.leadingH1 === undefined
        ? [{ problem: 'the document does not open with an H1', fix: 'start the body with "# <name of the document>"' }]
        : [];
    case 'summary-sentence':
      return summarySentence(shape);
    case 'unique-headings':
      return duplicateHeadings(shape);
    case 'banned-characters':
      return [
        ...bannedCharacters(rule.setting, submission.body),
        ...metadataFields(submission.metadata).flatMap((field) => bannedInField(rule.setting, field)),
      ];
    case 'no-frontmatter':
      return shape.opensWithFrontmatterFence
        ? [
            {
              problem: 'the body opens with a --- frontmatter fence',
              fix: 'remove the fenced block and pass its fields as metadata',
            },
          ]
        : [];
    case 'no-secrets':
      return [
        ...findSecrets(submission.body).map((secret) => secretFinding(`line ${secret.line}`, secret.kind)),
        ...metadataFields(submission.metadata).flatMap((field) =>
          [...new Set(findSecrets(field.text).map((secret) => secret.kind))].map((kind) =>
            secretFinding(field.name, kind),
          ),
        ),
      ];
  }
}

const secretFinding = (where: string, kind: string): Finding => ({
  problem: `${where} looks like ${kind}`,
  fix: 'remove the credential (rotate it if it was real) and refer to where it is kept instead',
});

/**
 * Each metadata key and value as a text the character and secret rules read: metadata is stored
 * with the document and shown to every reader (mark_fetch), so a credential there leaks as one in
 * the body does. A field is named `metadata.<key>`, unless the key itself looks like a credential:
 * a finding never repeats one, so such a key is only "a metadata key". `agent` is not read: the
 * broker sets it to the caller's verified email (write-gate.ts `writeMetadata`), which the caller
 * cannot change, so a rule meeting it would refuse every write of theirs with no fix to offer.
 */
function metadataFields(metadata: Readonly<Record<string, string>>): Array<{ name: string; text: string }> {
  const fields: Array<{ name: string; text: string }> = [];
  for (const [key, value] of Object.entries(metadata)) {
    if (key === 'agent') continue;
    const secretKey = findSecrets(key).length > 0;
    fields.push({ name: secretKey ? 'a metadata key' : `the metadata key ${JSON.stringify(key)}`, text: key });
    fields.push({ name: secretKey ? 'the value of a metadata key' : `metadata.${key}`, text: value });
  }
  return fields;
}

/** An axis counts only with a value: `category:` classifies nothing, so mark_lookup could not find the document by it. */
function requiredTags(axes: RuleSettings['required-tags'], tags: string): Finding[] {
  const present = new Set<string>();
  for (const tag of tags.split(',')) {
    const colon = tag.indexOf(':');
    if (colon >= 0 && tag.slice(colon + 1).trim() !== '') present.add(tag.slice(0, colon).trim().toLowerCase());
  }
  return axes
    .filter((axis) => !present.has(axis))
    .map((axis) => ({ problem: `no "${axis}:" tag`, fix: `add a tag such as ${axis}:<value> to metadata.tags` }));
}

function importance(range: RuleSettings['importance'], value: string | undefined): Finding[] {
  const fix = `set metadata.importance to a number from ${range.min} to ${range.max}`;
  if (value === undefined || value.trim() === '') return [{ problem: 'metadata.importance is missing', fix }];
  const number = Number(value);
  if (!Number.isFinite(number) || number < range.min || number > range.max)
    return [{ problem: `metadata.importance ${JSON.stringify(value)} is outside ${range.min} to ${range.max}`, fix }];
  return [];
}

function summarySentence(shape: Shape): Finding[] {
  const fix = 'put one sentence saying what the document is right under the H1';
  if (shape.leadingH1 === undefined) return [{ problem: 'there is no H1 for a summary to follow', fix }];
  const lead = shape.leadParagraph;
  if (lead === '') return [{ problem: 'no summary paragraph under the H1', fix }];
  if (!/[.!?]["')\]]?$/u.test(lead)) return [{ problem: 'the summary under the H1 is not a sentence', fix }];
  if (firstSentence(lead) !== lead)
    return [{ problem: 'the summary under the H1 is more than one sentence', fix: `${fix}; move the rest below it` }];
  return [];
}

function duplicateHeadings(shape: Shape): Finding[] {
  const byAnchor = new Map<string, string[]>();
  for (const heading of shape.headings) {
    const base = githubSlug(heading.text);
    byAnchor.set(base, [...(byAnchor.get(base) ?? []), heading.text]);
  }
  return [...byAnchor.values()]
    .filter((texts) => texts.length > 1)
    .map((texts) => ({
      problem: `${texts.length} headings read ${JSON.stringify(texts[0])}, so their anchors collide`,
      fix: 'give each heading a distinct name (headings are link anchors)',
    }));
}

function bannedInField(banned: RuleSettings['banned-characters'], field: { name: string; text: string }): Finding[] {
  return banned
    .filter((character) => field.text.includes(character))
    .map((character) => {
      const code = codePoint(character);
      return { problem: `${code} (${JSON.stringify(character)}) in ${field.name}`, fix: replaceFix(code) };
    });
}

const replaceFix = (code: string) => `replace each ${code} (for a dash, use a colon, a comma or parentheses)`;

const codePoint = (character: string) => `U+${character.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`;

function bannedCharacters(banned: RuleSettings['banned-characters'], body: string): Finding[] {
  const findings: Finding[] = [];
  for (const character of banned) {
    const lines: number[] = [];
    body.split('\n').forEach((line, index) => {
      if (line.includes(character)) lines.push(index + 1);
    });
    if (lines.length === 0) continue;
    const code = codePoint(character);
    const where = lines.length > 5 ? `${lines.slice(0, 5).join(', ')} and ${lines.length - 5} more` : lines.join(', ');
    findings.push({
      problem: `${code} (${JSON.stringify(character)}) on line${lines.length > 1 ? 's' : ''} ${where}`,
      fix: replaceFix(code),
    });
  }
  return findings;
}
