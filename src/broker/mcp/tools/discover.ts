import { requiredString } from '../args.ts';
import { formatToolResult } from '../format-tool-result.ts';
import { defineTool } from '../run-tool.ts';
import { readWorld, urlArgument } from '../tool-input.ts';
import { textResult } from '../tool-result.ts';
import { describe, worldUrlHint } from './descriptions.ts';

/** Every world serves its agent manifest here (Mark reference §7), readable without a token. */
export const agentManifestPath = '/.well-known/agent-manifest.md';

export const markDiscover = defineTool({
  name: 'mark_discover',
  title: "Read a world's agent manifest",
  description: describe(
    `Read a world's agent manifest (${agentManifestPath}): what the world is for, its main paths, and its rules for agents.`,
    'The path part of the URL is ignored. The answer is not-found when the world publishes no manifest.',
    worldUrlHint,
  ),
  inputSchema: { url: requiredString('url', 'any mark:// URL of the world, e.g. mark://team-a/') },
  readOnly: true,
  handler: async (args, ctx) => {
    const target = urlArgument(args.url);
    if (!target.ok) return target.error;
    const { world } = target.value;
    const answer = await readWorld(ctx, 'discover', world, { verb: 'FETCH', path: agentManifestPath });
    if (!answer.ok) return answer.error;
    return textResult(formatToolResult(answer.value, ['version', 'modified']));
  },
});
