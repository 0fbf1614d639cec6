import { z } from 'zod';
import type { ToolDefinition } from '../../mcp/definitions.ts';
import type { BrokerGraph } from '../graph-service.ts';
import { backlinkLine } from '../backlinks-section.ts';
import { toolError } from './tool-text.ts';
import { parseToolUrl, ToolUrlError } from './tool-url.ts';

const shape = { url: z.string().describe('mark:// URL of the document, e.g. mark://team-a/index.md') };

/** mark_backlinks (go-broker-inventory §5.6): who links here, with label, section and count per edge. */
export function markBacklinks(graph: BrokerGraph): ToolDefinition<typeof shape> {
  return {
    name: 'mark_backlinks',
    title: 'Backlinks',
    description:
      "List the documents that link to a document, one line per link with its relation, link text, source section and occurrence count. Answers from the broker's link graph (seeded from each world's published /graph.md, extended by mark_graph crawls); it does not fetch the document.",
    inputSchema: shape,
    readOnly: true,
    async handler(args, ctx) {
      const raw = args.url ?? '';
      if (raw === '') return toolError('url is required');
      try {
        parseToolUrl(raw);
      } catch (error) {
        if (error instanceof ToolUrlError) return toolError(`invalid URL: ${error.message}`);
        throw error;
      }
      await graph.seed(ctx.signal);
      const entries = graph.backlinks(raw);
      if (entries.length === 0) {
        return {
          text: `No backlinks found for ${raw}\nRun mark_graph to populate the broker's graph store. (Note: the broker's graph store is ephemeral; it resets on broker restart.)`,
        };
      }
      return {
        text: `Backlinks for ${raw} (${entries.length}):\n\n${entries.map((entry) => `${backlinkLine(entry)}\n`).join('')}`,
      };
    },
  };
}
