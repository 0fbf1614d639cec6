import { withinLinkBound } from './graph-bounds.ts';
import { edgeKey, type GraphEdge } from './model.ts';

/**
 * Edges reachable from both ends: a list per source (a crawl or a seed always
 * replaces a source's whole edge set) and a list per target (backlinks). Each
 * edge remembers its slot in its target's list, so removing it is a swap, and
 * each URL string is held once per end and shared by the edges that carry it.
 * Plain arrays instead of per-bucket hash tables keep memory per edge close to
 * the edge object itself.
 */

type StoredEdge = GraphEdge & { slot: number };
type Bucket = { url: string; edges: StoredEdge[] };

export class EdgeIndex {
  readonly #bySource = new Map<string, Bucket>();
  readonly #byTarget = new Map<string, Bucket>();
  #size = 0;

  get size(): number {
    return this.#size;
  }

  /**
   * Replaces every edge from `source` with `limit` distinct ones of `edges`,
   * typed relations first (src/broker/graph/graph-bounds.ts `withinLinkBound`);
   * of edges with the same {to, rel} the last wins. Returns whether some were
   * left out.
   */
  replaceFrom(source: string, edges: readonly GraphEdge[], limit: number = Number.POSITIVE_INFINITY): boolean {
    this.dropFrom(source);
    const distinct = lastWins(edges);
    const unique = withinLinkBound(distinct, limit);
    if (unique.length === 0) return distinct.length > 0;
    const bucket: Bucket = { url: this.#byTarget.get(source)?.url ?? source, edges: [] };
    this.#bySource.set(source, bucket);
    for (const edge of unique) {
      const target = this.#target(edge.to);
      // A literal of one fixed shape: spread copies carry spare in-object slots.
      const stored: StoredEdge = {
        from: bucket.url,
        to: target.url,
        rel: edge.rel,
        label: edge.label,
        anchor: edge.anchor,
        count: Math.max(edge.count, 1),
        slot: target.edges.length,
      };
      target.edges.push(stored);
      bucket.edges.push(stored);
    }
    this.#size += unique.length;
    return unique.length < distinct.length;
  }

  /** Removes every edge whose source is `url`. */
  dropFrom(url: string): void {
    const source = this.#bySource.get(url);
    if (source === undefined) return;
    for (const edge of source.edges) {
      const target = this.#byTarget.get(edge.to)!;
      const last = target.edges.pop()!;
      if (last !== edge) {
        target.edges[edge.slot] = last;
        last.slot = edge.slot;
      }
      if (target.edges.length === 0) this.#byTarget.delete(edge.to);
    }
    this.#size -= source.edges.length;
    this.#bySource.delete(url);
  }

  into(url: string): readonly GraphEdge[] {
    return this.#byTarget.get(url)?.edges ?? [];
  }

  from(url: string): readonly GraphEdge[] {
    return this.#bySource.get(url)?.edges ?? [];
  }

  *all(): IterableIterator<GraphEdge> {
    for (const bucket of this.#bySource.values()) yield* bucket.edges;
  }

  #target(url: string): Bucket {
    let bucket = this.#byTarget.get(url);
    if (bucket === undefined) {
      bucket = { url: this.#bySource.get(url)?.url ?? url, edges: [] };
      this.#byTarget.set(url, bucket);
    }
    return bucket;
  }
}

function lastWins(edges: readonly GraphEdge[]): readonly GraphEdge[] {
  if (edges.length < 2) return edges;
  const at = new Map<string, number>();
  const out: GraphEdge[] = [];
  for (const edge of edges) {
    const key = edgeKey(edge);
    const index = at.get(key);
    if (index === undefined) {
      at.set(key, out.length);
      out.push(edge);
    } else out[index] = edge;
  }
  return out;
}
