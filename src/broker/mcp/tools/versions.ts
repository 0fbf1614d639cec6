import { requiredString, urlDescription } from '../args.ts';
import { formatToolResult } from '../format-tool-result.ts';
import { defineTool } from '../run-tool.ts';
import { readWorld, urlArgument } from '../tool-input.ts';
import { textResult } from '../tool-result.ts';
import { describe, worldUrlHint } from './descriptions.ts';

export const markVersions = defineTool({
  name: 'mark_versions',
  title: 'Version history',
  description: describe(
    "Show a document's version history: total and current version, whether its hash chain verifies, and every kept version with its time.",
    'Read an old version with mark_fetch on mark://{world}/{path}/v<N>.',
    worldUrlHint,
  ),
  inputSchema: { url: requiredString('url', urlDescription) },
  readOnly: true,
  handler: async (args, ctx) => {
    const target = urlArgument(args.url);
    if (!target.ok) return target.error;
    const { world, path } = target.value;
    const answer = await readWorld(ctx, 'versions', world, { verb: 'VERSIONS', path });
    if (!answer.ok) return answer.error;
    return textResult(formatToolResult(answer.value, ['total', 'current', 'chain-valid', 'chain-error']));
  },
});
