import { z } from 'zod';
import type { ToolDefinition } from '../../mcp/definitions.ts';
import { compareEdges, compareUtf8 } from '../model.ts';
import { defaultCrawlLimits } from '../crawler.ts';
import { edgeAnnotation, goPadEnd, goQuote } from '../go-format.ts';
import type { BrokerGraph, GraphCrawl } from '../graph-service.ts';
import { toolError, unknownWorld } from './tool-text.ts';
import { parseToolUrl, ToolUrlError } from './tool-url.ts';

const shape = {
  url: z.string().describe('mark:// URL to start from, e.g. mark://team-a/index.md'),
  depth: z.number().optional().describe('Link hops to follow from the start document: 1 to 5, default 2'),
};

/** mark_graph (go-broker-inventory §5.2, §5.6): crawl from a document and record what was found. */
export function markGraph(graph: BrokerGraph): ToolDefinition<typeof shape> {
  return {
    name: 'mark_graph',
    title: 'Crawl the link graph',
    description:
      "Crawl outward from a document along its links and rel-* relations (breadth first, default depth 2, at most 5, at most 200 documents) and record every node and edge in the broker's link graph, so mark_backlinks and mark_explore can answer. Returns the nodes and edges this crawl saw. Links to other worlds' documents are followed; links outside the knowledge system are recorded, not followed.",
    inputSchema: shape,
    readOnly: true,
    async handler(args, ctx) {
      const raw = args.url ?? '';
      if (raw === '') return toolError('url is required');
      let world: string;
      try {
        world = parseToolUrl(raw).world;
      } catch (error) {
        if (error instanceof ToolUrlError) return toolError(`invalid URL: ${error.message}`);
        throw error;
      }
      if (graph.gateway.get(world) === undefined) return unknownWorld(world);
      // Seed first so a depth-limited crawl still lands in hub context.
      await graph.seed(ctx.signal);
      let result: GraphCrawl;
      try {
        result = await graph.crawl(raw, args.depth ?? defaultCrawlLimits.maxDepth, ctx.signal);
      } catch (error) {
        return toolError(`crawl failed: ${error instanceof Error ? error.message : String(error)}`);
      }
      return { text: formatGraphSummary(result, raw) };
    },
  };
}

/**
 * formatGraphSummary: counts for this crawl, then nodes and edges. Nodes are
 * sorted by URL and edges by (from, to, rel), so the text is deterministic.
 */
export function formatGraphSummary(result: GraphCrawl, startUrl: string): string {
  const nodes = [...result.graph.nodes.values()].sort((a, b) => compareUtf8(a.url, b.url));
  let out = `Crawled ${nodes.length} nodes, ${result.graph.edgeCount} edges from ${startUrl}\n`;
  if (nodes.length === 0) return out;
  out += '\nNodes:\n';
  for (const node of nodes) {
    out += `  [${goPadEnd(node.status, 9)}] ${goPadEnd(node.url, 40)} ${goQuote(node.title || '(no title)')}  ${node.linkCount} links\n`;
  }
  const edges = [...result.graph.edges].sort(compareEdges);
  if (edges.length > 0) {
    out += '\nEdges:\n';
    for (const edge of edges)
      out += `  ${edge.from} -> ${edge.to}${edgeAnnotation(edge.rel, edge.label, edge.anchor, edge.count)}\n`;
  }
  return out;
}
