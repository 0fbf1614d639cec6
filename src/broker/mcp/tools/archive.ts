import { requiredString, documentUrlDescription } from '../args.ts';
import { checkedWrite, rendered } from '../checked-write.ts';
import { formatToolResult } from '../format-tool-result.ts';
import { defineTool } from '../run-tool.ts';
import { urlArgument, writeWorld } from '../tool-input.ts';
import { structuredResult } from '../tool-result.ts';
import { qualifiedWorldUrl } from '../go-format.ts';
import { responseFields, writeShape } from '../structured.ts';
import { gateWrite } from '../write-gate.ts';
import { describe } from './descriptions.ts';

export const markArchive = defineTool({
  name: 'mark_archive',
  title: 'Archive a document',
  description: describe(
    'Archive a document: it leaves fetches, listings and lookups, but its version history is kept, and publishing an empty body brings it back.',
    'Needs write access to the world.',
  ),
  inputSchema: { url: requiredString('url', documentUrlDescription) },
  outputSchema: writeShape,
  readOnly: false,
  // Undoable (the history is kept, an empty publish brings the document back); archiving an archived
  // document answers ok at the same version.
  destructive: false,
  idempotent: true,
  openWorld: false,
  handler: async (args, ctx) => {
    const target = urlArgument(ctx, args.url);
    if (!target.ok) return target.error;
    const { world, path } = target.value;
    const refused = gateWrite(ctx, 'archive', world, path);
    if (refused) return refused;
    return checkedWrite(ctx, {
      verb: 'archive',
      world,
      path,
      // Archiving stores no content, so the publishing policy has nothing to read (it never checked archive);
      // the checked write is for forgetting the cached copy: an archived world.md or policy must stop applying at once.
      stored: null,
      write: () =>
        rendered(writeWorld(ctx, 'archive', world, { verb: 'ARCHIVE', path }), (response) =>
          structuredResult(
            formatToolResult(response, ['version']),
            responseFields(qualifiedWorldUrl(world, path), response),
          ),
        ),
    });
  },
});
