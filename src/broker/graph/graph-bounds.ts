import { Status } from '../../protocol/status.ts';
import { worldOfUrl } from './link-url.ts';

/**
 * How much of the broker's memory the link graph may hold. The graph is one
 * store per process, shared by every caller and kept until the process ends,
 * and a document may be 1 MiB of links (src/protocol/limits.ts): unbounded,
 * one such document added 121,776 edges (about 64 MB of heap), so one world
 * writer could crash the broker (test/security/graph-memory.test.ts). The Go
 * reference bounds a crawl to 200 documents and nothing else
 * (go-broker-inventory.md §5.2); these numbers are this broker's own.
 *
 * - A document contributes at most `linksPerDocument` distinct links (edges),
 *   its typed relations first (`withinLinkBound`); its link scan stops after
 *   `linksScannedPerDocument` occurrences.
 * - The store holds at most `nodes` documents and `edges` links in all, and
 *   each world at most `nodesPerWorld` and `edgesPerWorld` of them, so the
 *   writers of one world cannot fill what every other world needs. A link is
 *   charged to the world of the document it is in; a document to its own world
 *   when it was read, otherwise (a broken link's target, an outside URL) to the
 *   world of the document linking to it, whose writer made it.
 * - Full means refused, never evicted: a new document that does not fit is not
 *   recorded, and a document's links beyond the room left are cut and the
 *   document marked so (`linksCut`); what the store holds stays.
 */
export type GraphBounds = {
  linksPerDocument: number;
  linksScannedPerDocument: number;
  nodes: number;
  edges: number;
  nodesPerWorld: number;
  edgesPerWorld: number;
};

export const defaultGraphBounds: GraphBounds = {
  linksPerDocument: 1000,
  linksScannedPerDocument: 10_000,
  nodes: 50_000,
  edges: 100_000,
  nodesPerWorld: 12_500,
  edgesPerWorld: 25_000,
};

/**
 * One document's share, for every reader of a document's links into a graph:
 * the broker's crawl (src/broker/graph/crawler.ts) and the federation crawl
 * (src/broker/graph/federation/world-crawl.ts), whose hub `/graph.md` must
 * stay under Mark's 1 MiB body limit (a 1 MiB document of links alone made it
 * 4.7 MB, test/security/federation-link-flood.test.ts).
 */
export const documentLinkBounds = {
  scanned: defaultGraphBounds.linksScannedPerDocument,
  distinct: defaultGraphBounds.linksPerDocument,
} as const;

/**
 * The first `limit` of a document's distinct links, typed `rel-*` relations
 * before body links, each kind in its own order. Relations are the links a
 * writer declared on purpose (Mark SPEC §8), and they come after the body
 * links (document order, or `/graph.md`'s sort by target), so a plain cut
 * dropped every relation of a document with 1,000 body links.
 */
export function withinLinkBound<T extends { rel: string }>(edges: readonly T[], limit: number): T[] {
  if (edges.length <= limit) return [...edges];
  let typedRoom = Math.min(limit, edges.filter((edge) => edge.rel !== '').length);
  let bodyRoom = limit - typedRoom;
  return edges.filter((edge) => (edge.rel !== '' ? typedRoom-- > 0 : bodyRoom-- > 0));
}

/**
 * A document's links in the order `withinLinkBound` keeps them: its first
 * `limit` here are the ones it keeps (as a set; it keeps each kind's order).
 */
export function inLinkBoundOrder<T extends { rel: string }>(edges: readonly T[]): T[] {
  return [...edges.filter((edge) => edge.rel !== ''), ...edges.filter((edge) => edge.rel === '')];
}

/** Who pays for a node: its own world when it was read, else the world of a document linking to it. */
export function nodeHolder(url: string, status: string, linkedFrom: string | undefined): string {
  if (status === Status.Ok || linkedFrom === undefined) return worldOfUrl(url);
  return worldOfUrl(linkedFrom);
}

/** Counts of what the store holds, in all and per holder. */
export class GraphBudget {
  readonly bounds: GraphBounds;
  readonly #nodesOf = new Map<string, number>();
  readonly #edgesOf = new Map<string, number>();
  #nodes = 0;
  #edges = 0;

  constructor(bounds: GraphBounds) {
    this.bounds = bounds;
  }

  hasNodeRoom(holder: string): boolean {
    return this.#nodes < this.bounds.nodes && (this.#nodesOf.get(holder) ?? 0) < this.bounds.nodesPerWorld;
  }

  /** Links `holder` may still add (at most one document's worth). */
  edgeRoom(holder: string): number {
    const inAll = this.bounds.edges - this.#edges;
    const ofHolder = this.bounds.edgesPerWorld - (this.#edgesOf.get(holder) ?? 0);
    return Math.max(0, Math.min(this.bounds.linksPerDocument, inAll, ofHolder));
  }

  chargeNodes(holder: string, delta: number): void {
    this.#nodes += delta;
    adjust(this.#nodesOf, holder, delta);
  }

  chargeEdges(holder: string, delta: number): void {
    this.#edges += delta;
    adjust(this.#edgesOf, holder, delta);
  }
}

function adjust(counts: Map<string, number>, key: string, delta: number): void {
  const next = (counts.get(key) ?? 0) + delta;
  if (next === 0) counts.delete(key);
  else counts.set(key, next);
}
