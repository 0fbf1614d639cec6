import {
  optionalBoolean,
  optionalInteger,
  optionalMetadata,
  requiredInteger,
  requiredString,
  versionBounds,
} from '../args.ts';
import { isWriteStored } from '../../../protocol/status.ts';
import { bodyLimitText } from '../../../protocol/limits.ts';
import { checkedWrite, rendered } from '../checked-write.ts';
import { defineTool } from '../run-tool.ts';
import { describe } from './descriptions.ts';
import { uncheckedNote } from './backlinks.ts';
import { graphTarget, writeWorld } from '../tool-input.ts';
import { formatToolResult } from '../format-tool-result.ts';
import { structuredResult, toolError } from '../tool-result.ts';
import { z } from 'zod';
import { qualifiedWorldUrl } from '../go-format.ts';
import { responseFields, writeShape } from '../structured.ts';
import { gateWrite, writeMetadata } from '../write-gate.ts';

/**
 * What to do when the export is over Mark's body limit. The graph holds every crawl since the broker
 * started and no tool makes it smaller; the federation crawl writes the hub's /graph.md cut to fit
 * (src/broker/graph/federation/export-share.ts).
 */
const oversizedGraphAdvice =
  "the broker's link graph holds every crawl since it started and cannot be made smaller from here. The federation crawl (demarkus-broker crawl) writes the hub's /graph.md cut to fit the limit; read this graph in pages with mark_graph_export";

/** Versions of a published graph kept by default: a generated artifact needs little history. */
export const defaultGraphRetention = 20;

/** mark_graph_publish: export the link graph and PUBLISH it to a world, pruning old versions. */
export const markGraphPublish = defineTool({
  name: 'mark_graph_publish',
  title: 'Publish the link graph',
  description: describe(
    "Publish the broker's whole link graph, in /graph.md format, to a document in a world you may write to, e.g. mark://team-a/graph.md: every broker seeds a world's /graph.md as speaking for that world's own documents. Only rows of documents you may read now are published.",
    "The hub's /graph.md, /index/<host:port>.md and /.demarkus/ documents are written only by the federation crawl (demarkus-broker crawl) and refused here.",
    `A Mark document holds at most ${bodyLimitText}: a larger export is refused before anything is sent (the federation crawl writes the hub's /graph.md cut to fit).`,
    'Needs expected_version like mark_publish; conflicts are returned, not merged. Older versions beyond retention (default 20) are pruned.',
    'The publishing policy is checked first, as for mark_publish: pass metadata (e.g. tags) to meet its rules.',
  ),
  inputSchema: {
    url: requiredString('url', 'mark:// URL to publish to, e.g. mark://team-a/graph.md'),
    expected_version: requiredInteger(
      'expected_version',
      'Current version of the target document (0 to create it); a mismatch answers conflict',
      versionBounds,
    ),
    retention: optionalInteger(
      'retention',
      'Versions the world keeps after this write: default 20, 0 keeps every version',
      { min: 0, max: 1_000_000, message: 'retention must be from 0 to 1000000 (0 keeps every version)' },
    ),
    metadata: optionalMetadata(
      'metadata',
      "publisher metadata stored with the graph document, as for mark_publish: tags, importance and title meet the org's publishing policy; retention is set by the retention argument. agent is always set to you.",
      { retention: `use the retention argument (default ${defaultGraphRetention}, 0 keeps every version)` },
    ),
    confirm: optionalBoolean(
      'confirm',
      "true to publish although the org's publishing policy asked for confirmation on an earlier attempt",
    ),
  },
  outputSchema: {
    ...writeShape,
    node_count: z.number().int().describe('nodes in the published graph'),
    edge_count: z.number().int().describe('edges in the published graph'),
  },
  readOnly: false,
  // Prunes the versions beyond retention; a repeat at the same expected_version is a conflict.
  destructive: true,
  idempotent: true,
  openWorld: false,
  handler: async (args, ctx) => {
    const start = graphTarget(ctx, args.url);
    if (!start.ok) return start.error;
    const { graph, target } = start.value;
    if (args.expected_version < 0) return toolError('expected_version must be >= 0');
    const retention = args.retention ?? defaultGraphRetention;
    const { world, path } = target;
    const refused = gateWrite(ctx, 'graph publish', world, path);
    if (refused) return refused;
    const metadata = writeMetadata(ctx.identity, args.metadata);
    if (retention > 0) metadata.retention = String(retention);
    // Only rows the caller may read now: the published document is readable by whoever may read the target.
    const { body, nodeCount, edgeCount, unchecked } = await graph.readableExport(ctx.gateway, ctx.signal);
    const counts = `${nodeCount} nodes, ${edgeCount} edges`;
    const note = unchecked > 0 ? uncheckedNote('documents') : '';
    return checkedWrite(ctx, {
      verb: 'graph publish',
      world,
      path,
      stored: { body, metadata, scope: 'document', confirm: args.confirm === true, generated: true },
      oversize: { what: `graph export (${counts})`, advice: oversizedGraphAdvice },
      write: () => {
        const request = { ...metadata, 'expected-version': String(args.expected_version) };
        return rendered(
          writeWorld(ctx, 'graph publish', world, { verb: 'PUBLISH', path, metadata: request, body }),
          (response) => {
            // The Go broker says "Published" whatever the world answered (go-broker-inventory.md §5);
            // a conflict or a refusal leads with what happened instead (docs/decisions.md, 2026-12-07).
            const header = isWriteStored(response.status)
              ? `Published graph (${counts}) to ${args.url}\n`
              : `Graph (${counts}) not published to ${args.url}: the world answered ${response.status}\n`;
            return structuredResult(
              header + note + formatToolResult(response, ['version', 'modified', 'server-version']),
              {
                ...responseFields(qualifiedWorldUrl(world, path), response),
                node_count: nodeCount,
                edge_count: edgeCount,
              },
            );
          },
        );
      },
    });
  },
});
