import { requiredString, documentUrlDescription } from '../args.ts';
import { formatToolResult } from '../format-tool-result.ts';
import { defineTool } from '../run-tool.ts';
import { readWorld, urlArgument } from '../tool-input.ts';
import { structuredResult } from '../tool-result.ts';
import { z } from 'zod';
import { parseVersions } from '../../../protocol/render/versions.ts';
import { formatRfc3339 } from '../../../protocol/time.ts';
import { bodyText } from '../body-text.ts';
import { qualifiedWorldUrl } from '../go-format.ts';
import { integerOf, responseFields, responseShape } from '../structured.ts';
import { describe } from './descriptions.ts';

const outputSchema = {
  ...responseShape,
  total: z.number().int().optional().describe('how many versions the document has had'),
  current: z.number().int().optional().describe('the current version'),
  chain_valid: z
    .boolean()
    .optional()
    .describe('whether the hash chain over the kept versions verifies (false: the history was altered)'),
  chain_error: z.string().optional().describe('why the chain does not verify'),
  versions: z
    .array(z.object({ version: z.number().int(), modified: z.string(), url: z.string() }))
    .describe('the kept versions, newest first; each url reads that version with mark_fetch'),
};

export const markVersions = defineTool({
  name: 'mark_versions',
  title: 'Version history',
  description: describe(
    "Show a document's version history: total and current version, whether its hash chain verifies, and every kept version with its time.",
    'Read an old version with mark_fetch on mark://{world}/{path}/v<N>.',
  ),
  inputSchema: { url: requiredString('url', documentUrlDescription) },
  outputSchema,
  readOnly: true,
  openWorld: false,
  handler: async (args, ctx) => {
    const target = urlArgument(ctx, args.url);
    if (!target.ok) return target.error;
    const { world, path } = target.value;
    const answer = await readWorld(ctx, 'versions', world, { verb: 'VERSIONS', path });
    if (!answer.ok) return answer.error;
    const response = answer.value;
    const { metadata } = response;
    const total = integerOf(metadata.total);
    const current = integerOf(metadata.current);
    const chainError = metadata['chain-error'];
    const versions =
      response.status === 'ok'
        ? parseVersions(bodyText(response.body)).map((v) => ({
            version: v.version,
            modified: formatRfc3339(v.modified),
            url: qualifiedWorldUrl(world, `${path.replace(/\/+$/, '')}/v${v.version}`),
          }))
        : [];
    return structuredResult(formatToolResult(response, ['total', 'current', 'chain-valid', 'chain-error']), {
      ...responseFields(qualifiedWorldUrl(world, path), response),
      ...(total === undefined ? {} : { total }),
      ...(current === undefined ? {} : { current }),
      ...(metadata['chain-valid'] === undefined ? {} : { chain_valid: metadata['chain-valid'] === 'true' }),
      ...(chainError === undefined ? {} : { chain_error: chainError }),
      versions,
    });
  },
});
