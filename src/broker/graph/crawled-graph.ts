import { edgeKey, foldOccurrence, type GraphEdge, type GraphNode } from './model.ts';

/**
 * What one crawl saw (client/graph.Graph): its nodes by URL and its edges
 * aggregated by identity, in discovery order. It is merged into the store as
 * a whole once the crawl ends.
 */
export class CrawledGraph {
  readonly nodes = new Map<string, GraphNode>();
  readonly #edges = new Map<string, GraphEdge>();

  addNode(node: GraphNode): void {
    this.nodes.set(node.url, node);
  }

  /** Adds an edge or folds another occurrence into the edge with the same identity. */
  addEdge(edge: GraphEdge): void {
    const key = edgeKey(edge);
    const current = this.#edges.get(key);
    if (current === undefined) this.#edges.set(key, { ...edge, count: Math.max(edge.count, 1) });
    else foldOccurrence(current, edge);
  }

  get edges(): IterableIterator<GraphEdge> {
    return this.#edges.values();
  }

  get edgeCount(): number {
    return this.#edges.size;
  }
}
