import { errorWithCode } from '../../errors/coded-error.ts';
import { splitTableRow, unescapeCell } from '../../protocol/table-cells.ts';

/**
 * The organisation's publishing policy, read from the hub's
 * `/.well-known/demarkus/policy.md` (docs/knowledge.md "The publishing
 * policy"). The file is prose for people plus one table the broker reads:
 *
 * | rule | setting | severity |
 * |------|---------|----------|
 * | strictness | | warn |
 * | required-tags | category, audience | block |
 *
 * Only the rules listed are enforced. A blank severity takes the
 * `strictness` row's (default `warn`). Anything the broker cannot read
 * exactly (an unknown rule, a bad setting or severity, no table) makes the
 * whole file invalid: the caller then applies no policy and logs why, since a
 * half-understood policy would enforce something nobody wrote.
 */

export const policyPath = '/.well-known/demarkus/policy.md';

export const severities = ['block', 'ask', 'warn', 'off'] as const;
export type Severity = (typeof severities)[number];

export type RuleSettings = {
  'required-tags': readonly string[];
  importance: { min: number; max: number };
  'required-fields': readonly string[];
  'h1-first': null;
  'summary-sentence': null;
  'unique-headings': null;
  'banned-characters': readonly string[];
  'no-frontmatter': null;
  'no-secrets': null;
};
export type RuleId = keyof RuleSettings;
export const ruleIds = Object.keys({
  'required-tags': 0,
  importance: 0,
  'required-fields': 0,
  'h1-first': 0,
  'summary-sentence': 0,
  'unique-headings': 0,
  'banned-characters': 0,
  'no-frontmatter': 0,
  'no-secrets': 0,
} satisfies Record<RuleId, 0>) as RuleId[];

export type PolicyRule = { [K in RuleId]: { id: K; setting: RuleSettings[K]; severity: Severity } }[RuleId];

export type Policy = { strictness: Severity; rules: readonly PolicyRule[] };

/** The hub's policy.md cannot be read exactly; the broker then applies no policy and logs this (docs/knowledge.md). */
export class PolicyFormatError extends errorWithCode('ERR_POLICY_FORMAT') {}

export function parsePolicy(markdown: string): Policy {
  const rows = policyTable(markdown);
  let strictness: Severity = 'warn';
  const pending: Array<{ id: RuleId; setting: string; severity: string; line: number }> = [];
  const seen = new Set<string>();
  for (const row of rows) {
    const id = row.rule.toLowerCase();
    if (seen.has(id)) throw new PolicyFormatError(`line ${row.line}: rule "${id}" is listed twice`);
    seen.add(id);
    if (id === 'strictness') strictness = severityOf(row.severity || 'warn', row.line);
    else if ((ruleIds as string[]).includes(id)) pending.push({ ...row, id: id as RuleId });
    else throw new PolicyFormatError(`line ${row.line}: unknown rule "${row.rule}" (rules: ${ruleIds.join(', ')})`);
  }
  const rules = pending.map(
    (row) =>
      ({
        id: row.id,
        setting: settingOf(row.id, row.setting, row.line),
        severity: row.severity === '' ? strictness : severityOf(row.severity, row.line),
      }) as PolicyRule,
  );
  return { strictness, rules: rules.filter((rule) => rule.severity !== 'off') };
}

type Row = { rule: string; setting: string; severity: string; line: number };

/** The rows of the first table headed `rule | setting | severity`, outside fenced code. */
function policyTable(markdown: string): Row[] {
  const lines = markdown.split('\n').map((line) => line.replace(/\r$/, ''));
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker !== undefined) {
      if (fence === null) fence = marker;
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null;
      continue;
    }
    if (fence !== null) continue;
    const header = splitTableRow(line)?.map((cell) => cell.toLowerCase());
    if (header?.join('|') !== 'rule|setting|severity') continue;
    // trimEnd, not replace(/\s+$/): that regex is quadratic on a long run of spaces followed by a non-space.
    if (!/^\|(\s*:?-+:?\s*\|){3}$/.test((lines[i + 1] ?? '').trimEnd()))
      throw new PolicyFormatError(`line ${i + 2}: the policy table needs a |---|---|---| line under its header`);
    const rows: Row[] = [];
    for (let j = i + 2; j < lines.length; j++) {
      const cells = splitTableRow(lines[j]!);
      if (cells === null) break;
      if (cells.length !== 3)
        throw new PolicyFormatError(`line ${j + 1}: a policy row has 3 cells, found ${cells.length}`);
      const [rule, setting, severity] = cells.map(unescapeCell) as [string, string, string];
      rows.push({ rule, setting, severity: severity.toLowerCase(), line: j + 1 });
    }
    return rows;
  }
  throw new PolicyFormatError('no policy table: expected a table headed | rule | setting | severity |');
}

function severityOf(text: string, line: number): Severity {
  if ((severities as readonly string[]).includes(text)) return text as Severity;
  throw new PolicyFormatError(`line ${line}: severity "${text}" is not one of ${severities.join(', ')}`);
}

function settingOf(id: RuleId, text: string, line: number): RuleSettings[RuleId] {
  switch (id) {
    case 'required-tags':
    case 'required-fields': {
      const names = listSetting(text);
      if (names.length === 0) throw new PolicyFormatError(`line ${line}: ${id} needs a comma list of names`);
      const bad = names.find((name) => !/^[a-z0-9][a-z0-9_.-]*$/i.test(name));
      if (bad !== undefined) throw new PolicyFormatError(`line ${line}: ${id}: "${bad}" is not a plain name`);
      return names.map((name) => name.toLowerCase());
    }
    case 'importance':
      return importanceRange(text, line);
    case 'banned-characters': {
      const characters = bannedCharacters(text, line);
      if (characters.length === 0) throw new PolicyFormatError(`line ${line}: banned-characters lists no character`);
      return characters;
    }
    default:
      if (text !== '') throw new PolicyFormatError(`line ${line}: ${id} takes no setting, found "${text}"`);
      return null;
  }
}

function listSetting(text: string): string[] {
  return text
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item !== '');
}

/** `0.2 to 1`, `0.2..1` or `0.2-1`: an inclusive range inside [0, 1]. */
function importanceRange(text: string, line: number): { min: number; max: number } {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(?:to|\.\.|-)\s*(\d+(?:\.\d+)?)\s*$/.exec(text);
  const min = Number(match?.[1]);
  const max = Number(match?.[2]);
  if (match === null || !(min >= 0 && min <= max && max <= 1))
    throw new PolicyFormatError(
      `line ${line}: importance needs a range inside 0 to 1 such as "0.2 to 1", found "${text}"`,
    );
  return { min, max };
}

/**
 * Characters separated by whitespace, each literal or written `U+2014`. Whitespace only, as
 * docs/knowledge.md says: a comma is then a character like any other, so a policy can ban it.
 */
function bannedCharacters(text: string, line: number): string[] {
  return text
    .split(/\s+/)
    .filter((token) => token !== '')
    .map((token) => {
      const code = /^U\+([0-9a-f]{4,6})$/i.exec(token);
      if (code) return String.fromCodePoint(Number.parseInt(code[1]!, 16));
      if ([...token].length === 1) return token;
      throw new PolicyFormatError(
        `line ${line}: banned-characters: "${token}" is not one character or U+XXXX (separate them with spaces)`,
      );
    });
}
