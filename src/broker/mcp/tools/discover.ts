import { requiredString } from '../args.ts';
import { formatToolResult } from '../format-tool-result.ts';
import { defineTool } from '../run-tool.ts';
import { readWorld, urlArgument } from '../tool-input.ts';
import { structuredResult } from '../tool-result.ts';
import { z } from 'zod';
import { bodyText } from '../body-text.ts';
import { qualifiedWorldUrl } from '../go-format.ts';
import { responseFields, responseShape } from '../structured.ts';
import { describe } from './descriptions.ts';

/** Every world serves its agent manifest here (demarkus `docs/site/reference/agent-manifest.md`), readable without a token. */
export const agentManifestPath = '/.well-known/agent-manifest.md';

export const markDiscover = defineTool({
  name: 'mark_discover',
  title: "Read a world's agent manifest",
  description: describe(
    `Read a world's agent manifest (${agentManifestPath}): what the world is for, its main paths, and its rules for agents.`,
    'The path part of the URL is ignored. The answer is not-found when the world publishes no manifest.',
  ),
  inputSchema: { url: requiredString('url', 'any mark:// URL of the world, e.g. mark://team-a/') },
  outputSchema: {
    ...responseShape,
    body: z.string().describe("the manifest markdown (the world's explanation when it is not ok)"),
  },
  readOnly: true,
  openWorld: false,
  handler: async (args, ctx) => {
    const target = urlArgument(ctx, args.url);
    if (!target.ok) return target.error;
    const { world } = target.value;
    const answer = await readWorld(ctx, 'discover', world, { verb: 'FETCH', path: agentManifestPath });
    if (!answer.ok) return answer.error;
    const response = answer.value;
    return structuredResult(formatToolResult(response, ['version', 'modified']), {
      ...responseFields(qualifiedWorldUrl(world, agentManifestPath), response),
      body: bodyText(response.body),
    });
  },
});
