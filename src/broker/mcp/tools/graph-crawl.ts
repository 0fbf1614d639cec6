import { clampedInteger, requiredString } from '../args.ts';
import { defineTool } from '../run-tool.ts';
import { graphTarget } from '../tool-input.ts';
import { structuredResult, toolError, toolErrorText, unknownWorldText } from '../tool-result.ts';
import { crawlGraphShape, graphData } from '../structured.ts';
import { goPadEnd, goQuote } from '../go-format.ts';
import { cappedList } from '../outline-text.ts';
import { countText } from '../../count-text.ts';
import {
  compareEdges,
  compareUtf8,
  defaultCrawlLimits,
  defaultGraphBounds,
  maxCrawlDepth,
  edgeAnnotation,
  type GraphCrawl,
  type GraphNode,
} from '../../graph/index.ts';

/**
 * The text lists at most this many nodes, and as many edges, then "+N more"
 * (as mark_explore caps its lists, src/broker/mcp/tools/explore.ts): a crawl
 * may hold 25,000 edges, about 2.5 MB of text for the agent to read, where
 * this keeps it near 30 KB. structuredContent carries all of them.
 */
export const graphTextListCap = 100;

/** mark_graph: crawl from a document and record what was found in the link graph. */
export const markGraph = defineTool({
  name: 'mark_graph',
  title: 'Crawl the link graph',
  description: `Crawl outward from a document along its links and rel-* relations (breadth first, default depth ${defaultCrawlLimits.maxDepth}, at most ${maxCrawlDepth}, at most ${defaultCrawlLimits.maxNodes} documents) and record every node and edge in the broker's link graph, so mark_backlinks and mark_explore can answer (a missing document only when something links to it). Returns the nodes and edges this crawl saw. Links to other worlds' documents are followed; links outside the knowledge system are recorded, not followed. The graph keeps at most ${defaultGraphBounds.linksPerDocument} distinct links of a document (its rel-* relations first) and is bounded in size: the answer says which documents had links cut or were not recorded. The text lists at most ${graphTextListCap} nodes and ${graphTextListCap} edges, each list then '+N more'; structuredContent carries every node and edge of the crawl.`,
  inputSchema: {
    url: requiredString('url', 'mark:// URL to start from, e.g. mark://team-a/index.md'),
    depth: clampedInteger(
      'depth',
      `Link hops to follow from the start document: 1 to ${maxCrawlDepth}, default 2 (a smaller depth counts as 1, a larger one as ${maxCrawlDepth})`,
      { min: 1, max: maxCrawlDepth, clampBelow: true },
    ),
  },
  outputSchema: crawlGraphShape,
  readOnly: true,
  openWorld: false,
  handler: async (args, ctx) => {
    const start = graphTarget(ctx, args.url);
    if (!start.ok) return start.error;
    const { graph, target, url } = start.value;
    if (ctx.gateway.get(target.world) === undefined)
      return toolError(unknownWorldText(target.world, ctx.gateway.list()));
    // Seed first so a depth-limited crawl still lands in hub context. Seeding is
    // the broker's own, shared with every caller; the crawl reads as the caller.
    await graph.seed(ctx.signal, url);
    let result: GraphCrawl;
    try {
      result = await graph.crawl(url, ctx.gateway, args.depth ?? defaultCrawlLimits.maxDepth, ctx.signal);
    } catch (error) {
      // Only a cancellation or a bug gets here (a document that fails is a node's status): word it as every tool does.
      return toolError(toolErrorText('crawl', target.world, error));
    }
    const nodes = crawledNodes(result);
    // Every edge this crawl saw was read by the crawl itself, not seeded from a /graph.md.
    return structuredResult(formatGraphSummary(result, url, nodes), {
      ...graphData(nodes, result.graph.edges, () => 'crawl', { url }),
      ...(result.recorded.notRecorded.length > 0 ? { not_recorded: result.recorded.notRecorded } : {}),
    });
  },
});

/**
 * Counts for this crawl, then nodes and edges, at most `graphTextListCap` of
 * each. Nodes are sorted by URL and edges by (from, to, rel), so the text is
 * deterministic. `crawled` is `crawledNodes(result)`, built once by the
 * handler, which also answers with the nodes.
 */
function formatGraphSummary(result: GraphCrawl, startUrl: string, crawled: readonly GraphNode[]): string {
  const nodes = [...crawled].sort((a, b) => compareUtf8(a.url, b.url));
  let out = `Crawled ${nodes.length} nodes, ${result.graph.edgeCount} edges from ${startUrl}\n`;
  out += boundsNotes(result, nodes);
  if (nodes.length === 0) return out;
  const nodeLines = nodes.map((node) => {
    const cut = node.linksCut === true ? ' (links cut)' : '';
    const failure = node.failure !== undefined ? ` (${node.failure})` : '';
    return `  [${goPadEnd(node.status, 9)}] ${goPadEnd(node.url, 40)} ${goQuote(node.title || '(no title)')}  ${node.linkCount} links${cut}${failure}`;
  });
  out += `\nNodes:\n${cappedList(nodeLines, graphTextListCap, 'nodes')}`;
  const edges = [...result.graph.edges].sort(compareEdges);
  if (edges.length > 0) {
    const edgeLines = edges.map(
      (edge) => `  ${edge.from} -> ${edge.to}${edgeAnnotation(edge.rel, edge.label, edge.anchor, edge.count)}`,
    );
    out += `\nEdges:\n${cappedList(edgeLines, graphTextListCap, 'edges')}`;
  }
  if (nodes.length > graphTextListCap || edges.length > graphTextListCap)
    out += `\nThis text lists the first ${graphTextListCap} nodes and edges; structuredContent lists them all, and mark_explore or mark_backlinks answers for one document.\n`;
  return out;
}

/** The crawl's nodes, marked `linksCut` also where the shared graph had room for only some of their links. */
function crawledNodes(result: GraphCrawl): GraphNode[] {
  const cutByStore = new Set(result.recorded.linksCut);
  return [...result.graph.nodes.values()].map((node) =>
    cutByStore.has(node.url) && node.linksCut !== true ? { ...node, linksCut: true } : node,
  );
}

/**
 * What the graph's bounds left out (src/broker/graph/graph-bounds.ts), so a
 * caller does not take a partial graph for the whole: documents whose links
 * were cut, and documents the shared graph had no room for.
 */
function boundsNotes(result: GraphCrawl, nodes: readonly GraphNode[]): string {
  const bounds = defaultGraphBounds;
  const cut = nodes.filter((node) => node.linksCut === true).length;
  let out = '';
  if (cut > 0)
    out += `Links cut on ${cut} document(s), marked "(links cut)" below: the link graph keeps at most ${countText(bounds.linksPerDocument)} distinct links of a document, ${countText(defaultCrawlLimits.maxEdges)} of one crawl and ${countText(bounds.edgesPerWorld)} of one world's documents. Read such a document (mark_fetch) for all its links.\n`;
  const refused = result.recorded.notRecorded;
  if (refused.length > 0) {
    const sorted = [...refused].sort(compareUtf8);
    const shown = sorted.slice(0, graphTextListCap).join(', ');
    const more =
      sorted.length > graphTextListCap ? `, +${countText(sorted.length - graphTextListCap)} more (not_recorded)` : '';
    out += `Not recorded in the shared link graph, which has no room for them (at most ${countText(bounds.nodes)} documents and ${countText(bounds.edges)} links, ${countText(bounds.nodesPerWorld)} and ${countText(bounds.edgesPerWorld)} charged to one world): ${shown}${more}. They are listed in this answer, but mark_backlinks and mark_explore will not know them while it is full.\n`;
  }
  return out;
}
