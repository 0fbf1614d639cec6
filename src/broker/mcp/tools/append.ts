import { ReadProtectedWriteError } from '../../worlds/gateway.ts';
import { refusesRead } from '../../worlds/read-right-probe.ts';
import { optionalBoolean, optionalInteger, requiredString, documentUrlDescription, versionBounds } from '../args.ts';
import { bodyLimitText } from '../../../protocol/limits.ts';
import { appendOverLimitNote } from '../body-limit.ts';
import { bodyText } from '../body-text.ts';
import { checkedWrite, rendered } from '../checked-write.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { formatToolResult } from '../format-tool-result.ts';
import { goQuote } from '../go-format.ts';
import { defineTool } from '../run-tool.ts';
import { readWorld, urlArgument, writeWorld, type Outcome } from '../tool-input.ts';
import { structuredResult, toolError } from '../tool-result.ts';
import { qualifiedWorldUrl } from '../go-format.ts';
import { responseFields, writeShape } from '../structured.ts';
import { gateWrite, writeMetadata } from '../write-gate.ts';
import { describe } from './descriptions.ts';

const inputSchema = {
  url: requiredString('url', documentUrlDescription),
  body: requiredString(
    'body',
    `markdown to add at the end of the document; the document with it added holds at most ${bodyLimitText} of UTF-8`,
  ),
  expected_version: optionalInteger(
    'expected_version',
    'the version you last read; leave out or 0 to append to whatever the current version is',
    versionBounds,
  ),
  confirm: optionalBoolean(
    'confirm',
    "true to append although the org's publishing policy asked for confirmation on an earlier attempt",
  ),
};

export const markAppend = defineTool({
  name: 'mark_append',
  title: 'Append to a document',
  description: describe(
    'Add markdown to the end of an existing document, creating a new version that keeps its tags, importance, title and type.',
    'expected_version is optional: leave it out (or 0) to append to the current version, or pass the version you read to be told when someone changed it first.',
    'To change metadata or rewrite text, use mark_publish.',
    `A document holds at most ${bodyLimitText}, the appended text included: text over that on its own is refused before anything is sent, and an append that would take the document over it is answered by the world with nothing appended; start a new document and link it instead.`,
    "The org's publishing policy is checked on the added text (banned characters, secrets).",
  ),
  inputSchema,
  outputSchema: writeShape,
  readOnly: false,
  // Only adds: a new version, the history kept. Not idempotent: without expected_version a repeat appends again.
  destructive: false,
  idempotent: false,
  openWorld: false,
  handler: async (args, ctx) => append(ctx, args.url, args.body, args.expected_version ?? 0, args.confirm === true),
});

async function append(
  ctx: ToolContext,
  raw: string,
  body: string,
  expectedVersion: number,
  confirm: boolean,
): Promise<ToolResult> {
  const target = urlArgument(ctx, raw);
  if (!target.ok) return target.error;
  if (expectedVersion < 0) return toolError('expected_version must be >= 0');
  const { world, path } = target.value;
  const refused = gateWrite(ctx, 'append', world, path);
  if (refused) return refused;
  return checkedWrite(ctx, {
    verb: 'append',
    world,
    path,
    stored: { body, metadata: {}, scope: 'fragment', confirm },
    write: async () => {
      let version = expectedVersion;
      if (version === 0) {
        const resolved = await currentVersion(ctx, world, path);
        if (!resolved.ok) return resolved;
        version = resolved.value;
      }
      const metadata = { ...writeMetadata(ctx.identity), 'expected-version': String(version) };
      return rendered(writeWorld(ctx, 'append', world, { verb: 'APPEND', path, metadata, body }), (response) =>
        structuredResult(
          formatToolResult(response, ['version', 'modified', 'server-version']) +
            appendOverLimitNote(response.status, bodyText(response.body)),
          responseFields(qualifiedWorldUrl(world, path), response),
        ),
      );
    },
  });
}

/** expected_version 0 means "the current one": VERSIONS tells (reference texts for each way it can fail). */
async function currentVersion(ctx: ToolContext, world: string, path: string): Promise<Outcome<number>> {
  const answer = await readWorld(ctx, 'append (auto-resolve)', world, { verb: 'VERSIONS', path });
  if (!answer.ok) return answer;
  const response = answer.value;
  // Same refusal as the write itself would get: a protected path says nothing about existence.
  if (refusesRead(response)) return { ok: false, error: toolError(new ReadProtectedWriteError(world, path).message) };
  if (response.status === 'not-found')
    return { ok: false, error: toolError(missingDocumentText(qualifiedWorldUrl(world, path))) };
  if (response.status !== 'ok') return { ok: false, error: toolError(`could not resolve version: ${response.status}`) };
  const current = response.metadata.current;
  if (current === undefined)
    return { ok: false, error: toolError('could not resolve version: no current version in response') };
  if (!/^[+-]?\d+$/.test(current))
    return { ok: false, error: toolError(`could not resolve version: invalid current version ${goQuote(current)}`) };
  return { ok: true, value: Number(current) };
}

/**
 * APPEND adds to a document that exists; an agent that appends to a new path is told how to create it.
 * Web apps map write errors by words (the library's mapWriteError: "conflict", "expected version"), so
 * the text names the argument `expected_version` and says neither.
 */
export function missingDocumentText(url: string): string {
  return `${url} does not exist, so there is nothing to append to: create it with mark_publish and expected_version 0`;
}
