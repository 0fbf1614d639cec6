import type { MarkResponse } from '../../../protocol/response.ts';
import { prefixedSha256 } from '../../../protocol/token.ts';
import { requiredString } from '../args.ts';
import { bodyText } from '../body-text.ts';
import type { ToolContext, ToolResult } from '../definitions.ts';
import { formatToolResult } from '../format-tool-result.ts';
import { Status } from '../../../protocol/status.ts';
import { parseContentIndex, type IndexEntry } from '../../../protocol/render/content-index.ts';
import { defineTool } from '../run-tool.ts';
import { readWorld, urlArgument } from '../tool-input.ts';
import { isUnknownWorld, structuredResult, toolError, toolErrorText } from '../tool-result.ts';
import { z } from 'zod';
import { qualifiedWorldUrl } from '../go-format.ts';
import { responseFields, responseShape } from '../structured.ts';
import { parseToolUrl, ToolUrlError } from '../tool-url.ts';
import { describe, exampleIndexUrl, hubWorld } from './descriptions.ts';

const hashPattern = /^sha256-[0-9a-f]{64}$/;

const inputSchema = {
  hash: requiredString('hash', 'content hash: sha256- followed by 64 lower-case hex characters'),
  index: requiredString(
    'index',
    `mark:// URL of a hash index document, e.g. ${exampleIndexUrl} (mark_index writes them, usually on ${hubWorld})`,
  ),
};

export const markResolve = defineTool({
  name: 'mark_resolve',
  title: 'Resolve content by hash',
  description: describe(
    'Fetch content by its hash: looks the sha256-<hex> hash up in a hash index document, then fetches it from a world the index names, checking that what comes back really has that hash.',
    'Use it to follow a content-addressed reference; for a path, use mark_fetch.',
  ),
  inputSchema,
  outputSchema: {
    ...responseShape,
    hash: z.string().describe('the content hash, verified against the bytes returned'),
    server: z.string().describe('the server of the index row that served it'),
    body: z.string().describe('the content'),
  },
  readOnly: true,
  openWorld: false,
  handler: async (args, ctx) => resolve(ctx, args.hash, args.index),
});

async function resolve(ctx: ToolContext, hash: string, indexUrl: string): Promise<ToolResult> {
  if (!hashPattern.test(hash)) return toolError('invalid hash format: expected sha256-<64 lowercase hex characters>');
  const index = urlArgument(ctx, indexUrl, 'index');
  if (!index.ok) return index.error;
  const answer = await readWorld(ctx, 'resolve (index fetch)', index.value.world, {
    verb: 'FETCH',
    path: index.value.path,
  });
  if (!answer.ok) return answer.error;
  const indexAt = qualifiedWorldUrl(index.value.world, index.value.path);
  if (answer.value.status !== 'ok') return toolError(indexUnreadable(indexAt, answer.value.status));
  const candidates = parseContentIndex(bodyText(answer.value.body)).filter((entry) => entry.hash === hash);
  if (candidates.length === 0) return toolError(hashNotIndexed(hash, indexAt, answer.value.metadata.version));
  let lastProblem = '';
  for (const candidate of candidates) {
    const outcome = await tryCandidate(ctx, candidate, hash);
    if (typeof outcome === 'string') {
      lastProblem = outcome;
      continue;
    }
    const { world, response } = outcome;
    return structuredResult(formatToolResult(response, ['version', 'modified', 'content-hash']), {
      ...responseFields(qualifiedWorldUrl(world, `/${hash}`), response),
      hash,
      server: candidate.server,
      body: bodyText(response.body),
    });
  }
  return toolError(`could not resolve hash from any server: ${lastProblem}`);
}

// The two texts below begin with the reference broker's (go-broker-inventory.md, mark_resolve) and go on
// with what to try next, which the reference leaves out.

/** The index could not be read: a missing one is for mark_index to write; any other answer is the world's to explain. */
function indexUnreadable(indexUrl: string, status: string): string {
  const head = `index fetch returned: ${status}`;
  if (status === Status.NotFound)
    return `${head}: there is no index document at ${indexUrl}; check the URL, or build the index there with mark_index source=<the world or directory to index> target=${indexUrl}`;
  return `${head}: mark_fetch ${indexUrl} shows the world's explanation`;
}

/** The hash is mistyped, or its document came after the index was built: mark_index updates it at its current version. */
function hashNotIndexed(hash: string, indexUrl: string, indexVersion: string | undefined): string {
  return (
    `hash ${hash} not found in index ${indexUrl}: check the hash; if its document is newer than the index, update the ` +
    `index with mark_index source=<the world or directory it covers> target=${indexUrl} ` +
    `expected_version=${indexVersion ?? '<its current version>'}`
  );
}

/** The candidate's answer, or why it was skipped (`<server>: <reason>`, as the reference words it). */
async function tryCandidate(
  ctx: ToolContext,
  entry: IndexEntry,
  hash: string,
): Promise<{ world: string; response: MarkResponse } | string> {
  const world = worldOfServer(ctx, entry.server);
  if (typeof world !== 'string') return `${entry.server}: invalid server URL: ${world.problem}`;
  let response: MarkResponse;
  try {
    response = await ctx.gateway.read(world, { verb: 'FETCH', path: `/${hash}`, signal: ctx.signal });
  } catch (error) {
    if (isUnknownWorld(error))
      return `${entry.server}: not a knowledge-system world (broker has no config for this server)`;
    return `${entry.server}: ${toolErrorText('resolve', world, error).replace(/^resolve failed: /, '')}`;
  }
  if (response.status !== 'ok') return `${entry.server}: ${response.status}`;
  const declared = response.metadata['content-hash'] ?? '';
  if (declared !== hash) return `${entry.server}: hash mismatch (got ${declared})`;
  // The world's own claim is checked against the bytes: an index must not make us vouch for other content.
  const actual = prefixedSha256(response.body);
  if (actual !== hash) return `${entry.server}: hash mismatch (got ${actual})`;
  return { world, response };
}

/**
 * The world an index row's server names: `mark://{world}` as mark_index writes
 * it, or a world's dial address (`mark://host:port`), which federation
 * crawlers write; the reference skips the latter, we map it back to its world.
 */
function worldOfServer(ctx: ToolContext, server: string): string | { problem: string } {
  try {
    return parseToolUrl(server, ctx.gateway.list()).world;
  } catch (error) {
    if (!(error instanceof ToolUrlError)) throw error;
    return { problem: error.message };
  }
}
