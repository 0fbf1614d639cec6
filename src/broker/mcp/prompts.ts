import type { PromptDefinition } from './definitions.ts';
import { errorWithCode } from '../../errors/coded-error.ts';
import type { WorldInfo } from '../worlds/gateway.ts';
import { worldInArgument, worldNamed } from '../worlds/world-aliases.ts';
import { qualifiedWorldUrl } from './go-format.ts';
import { parseToolUrl, ToolUrlError } from './tool-url.ts';

/**
 * Workflows offered as MCP prompts (Go broker `mcp_prompts.go`): orient on one
 * document, recall a subject across every world, digest recent changes. Each
 * renders one user message that names the tools to call, in order, and what
 * to do when a world fails, so the agent never mistakes "could not look" for
 * "nothing there".
 */

/** A prompt argument that is missing or unusable; the HTTP layer answers it as invalid params. */
export class PromptArgumentError extends errorWithCode('ERR_PROMPT_ARGUMENT') {}

/** Arguments arrive as strings and are trimmed; an empty one counts as missing. */
function requiredArgument(args: Record<string, string | undefined>, name: string): string {
  const value = (args[name] ?? '').trim();
  if (value === '') throw new PromptArgumentError(`${name} argument is required`);
  return value;
}

/**
 * A document URL argument read as the tools read theirs (tool-url.ts): any
 * address form of a known world, rendered as the logical
 * `mark://{world}/{path}` the tools answer with. A URL the tools would refuse
 * is refused here, so the agent is never told to call them with it.
 */
function documentUrlArgument(args: Record<string, string | undefined>, worlds: readonly WorldInfo[]): string {
  const raw = requiredArgument(args, 'url');
  let target: { world: string; path: string };
  try {
    target = parseToolUrl(raw, worlds);
  } catch (error) {
    if (!(error instanceof ToolUrlError)) throw error;
    throw new PromptArgumentError(`url argument is not a mark:// document URL: ${error.message}`, { cause: error });
  }
  if (worldNamed(target.world, worlds) === undefined) throw unknownWorldArgument('url', worlds);
  return qualifiedWorldUrl(target.world, target.path);
}

function unknownWorldArgument(name: string, worlds: readonly WorldInfo[]): PromptArgumentError {
  return new PromptArgumentError(
    `${name} argument names no world of this knowledge system (worlds: ${worlds.map((world) => world.name).join(', ')})`,
  );
}

export const orientPrompt: PromptDefinition = {
  name: 'orient',
  title: 'Orient around a document',
  description:
    'Understand one document and its neighbourhood in a single call, then read only the sections that matter.',
  arguments: [{ name: 'url', description: 'mark:// URL of the document, e.g. mark://team-a/index.md', required: true }],
  render(args, ctx) {
    const url = documentUrlArgument(args, ctx.worlds);
    const text = [
      `Get oriented around ${url}.`,
      '',
      `1. Call mark_explore with url "${url}". It returns the outline (headings with #anchors), the opening paragraph, outbound links, backlinks and sibling documents.`,
      `2. Pick the one or two sections that bear on the task and read each with mark_fetch, url "${url}#<anchor>". Fetch the whole document (force=true) only if the sections are not enough.`,
      `3. Answer in three parts: what the document is, in one sentence; how it connects to others (links, backlinks); and what its relevant sections say, citing each as ${url}#<anchor>.`,
    ].join('\n');
    return { description: `Orient around ${url}`, text };
  },
};

export const recallPrompt: PromptDefinition = {
  name: 'recall',
  title: 'Recall a subject',
  description: 'Find what the knowledge system holds on a subject across every world, then read the best match.',
  arguments: [{ name: 'subject', description: 'what to recall, e.g. "release checklist"', required: true }],
  render(args) {
    const subject = requiredArgument(args, 'subject');
    const text = [
      `Find out what this knowledge system records about: ${subject}`,
      '',
      `1. Call mark_search with query ${JSON.stringify(subject)}: full-text search of every world, in plain words. Rows are mark://<world>/<path>#<anchor> URLs, best first.`,
      '   - A tool error means the search itself failed: say so and stop; do not report that nothing exists.',
      '   - status: partial means some worlds did not answer: use the rows you got and name the worlds that failed.',
      '   - No rows: call mark_lookup_all with one or two subject words (it matches tags and titles), then try once more with a broader word or a synonym.',
      '2. Call mark_explore on the best row to see its outline and neighbourhood; explore a second row only if the first does not cover the subject.',
      '3. Read the sections that address the subject with mark_fetch on mark://<world>/<path>#<anchor>; avoid the full body of large documents.',
      '4. Report what is known, citing every statement with its mark://<world>/<path>#<anchor>. Say the system has nothing on the subject only after a complete (status: ok) broader lookup came back empty. Never fill gaps from memory.',
    ].join('\n');
    return { description: `Recall: ${subject}`, text };
  },
};

const datePattern = /^(\d{4})-(\d{2})-(\d{2})$/;

export const whatsNewPrompt: PromptDefinition = {
  name: 'whats-new',
  title: "What's new",
  description: 'A digest of recently changed documents, across every world or in one, newest first.',
  arguments: [
    { name: 'since', description: 'start date as YYYY-MM-DD (default: 7 days ago)', required: false },
    {
      name: 'world',
      description: 'only this world, by name or mark:// address (default: every world)',
      required: false,
    },
  ],
  render(args, ctx) {
    const since = (args.since ?? '').trim();
    const named = (args.world ?? '').trim();
    if (since !== '' && !isCalendarDate(since))
      throw new PromptArgumentError('since argument must be a date as YYYY-MM-DD');
    // Read as mark_search and mark_doctor read a world (worldInArgument); the steps carry its own spelling.
    const world = named === '' ? '' : worldInArgument(named, ctx.worlds)?.name;
    if (world === undefined) throw unknownWorldArgument('world', ctx.worlds);
    const date = since !== '' ? since : daysBefore(ctx.now(), 7);
    const filter = `modified-after=${date}`;
    const lookup =
      world === ''
        ? `Call mark_lookup_all with query "*" and filter "${filter}". A tool error means the lookup failed: say so and stop. status: partial means some worlds did not answer: report what came back and name the worlds that failed.`
        : `Call mark_lookup with url "mark://${world}/", query "*" and filter "${filter}". A tool error means the lookup failed: say so and stop.`;
    const text = [
      `Summarize what changed in this knowledge system since ${date}.`,
      '',
      `1. ${lookup} The rows are the changed documents, ranked by relevance and importance.`,
      '2. For each document you select, call mark_explore to get its outline and modified time; read a section with mark_fetch on its mark://<world>/<path>#<anchor> only when the outline is not enough. Do not fetch full bodies of large documents.',
      '3. Write a short digest, newest first by modified time: for each document its mark://<world>/<path>, what it covers, and what probably changed. Say that the list is limited, not exhaustive.',
      world === ''
        ? 'Only a complete (status: ok) empty lookup shows that nothing changed; an empty partial lookup proves nothing.'
        : 'Only a successful empty lookup shows that nothing changed.',
    ].join('\n');
    let title = "What's new";
    if (since !== '') title += ` since ${since}`;
    if (world !== '') title += ` in ${world}`;
    return { description: title, text };
  },
};

export const publishPrompt: PromptDefinition = {
  name: 'publish',
  title: 'Publish to the standard',
  description:
    "Write or update a document the way this organisation's publishing standard asks, so it passes the broker's policy check the first time.",
  arguments: [
    {
      name: 'url',
      description: 'mark:// URL of the document to write, e.g. mark://team-a/docs/runbook.md',
      required: true,
    },
    { name: 'subject', description: 'what the document is about', required: false },
  ],
  async render(args, ctx) {
    const url = documentUrlArgument(args, ctx.worlds);
    const subject = (args.subject ?? '').trim();
    const standard = ctx.knowledge?.standard;
    const parts = standard
      ? await Promise.all(
          (['policy', 'template', 'style'] as const).map(async (part) => [part, await standard.part(part)] as const),
        )
      : [];
    const published = parts.filter(([, document]) => document !== undefined);
    const lines = [
      `Write ${url}${subject === '' ? '' : ` about: ${subject}`}.`,
      '',
      '1. Call mark_fetch on the URL: if it exists, note its version and keep what is still true; if not, you will publish with expected_version 0.',
      "2. Call mark_worlds and read the world's descriptor: make sure the document belongs in this world and in this folder.",
      '3. Write the document by the standard below: the name as the H1, one sentence under it saying what the document is, unique headings, and the metadata the policy requires (tags, importance).',
      '4. Call mark_publish. If the policy refuses, fix every rule it lists and publish again; pass confirm: true only when a rule asked for confirmation and you are sure.',
    ];
    if (published.length === 0)
      lines.push(
        '',
        'This organisation has not published a standard on its hub; follow the style of the neighbouring documents.',
      );
    for (const [part, document] of published)
      lines.push('', `## The org's ${part} (mark://${standard!.hub}${document!.path})`, '', document!.body.trim());
    return { description: `Publish ${url} to the standard`, text: lines.join('\n') };
  },
};

export function allPrompts(): PromptDefinition[] {
  return [orientPrompt, recallPrompt, whatsNewPrompt, publishPrompt];
}

function isCalendarDate(text: string): boolean {
  const m = datePattern.exec(text);
  if (m === null) return false;
  const date = new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3])));
  return date.toISOString().slice(0, 10) === text;
}

function daysBefore(now: Date, days: number): string {
  return new Date(now.getTime() - days * 86_400_000).toISOString().slice(0, 10);
}
