/**
 * The link graph's data model (Go `client/graphstore/store.go`). A node is a document
 * URL with what a crawl learned about it; an edge is a directed link whose
 * identity is {from, to, rel}: a plain body link (rel "") and a typed
 * `rel-<predicate>` edge between the same pair are distinct edges.
 */

/**
 * A protocol status (`ok`, `not-found`, `archived`, ...) when the document was
 * read, or one of the crawler's own words: `error` (the fetch failed),
 * `external` (not followed) and `` (never visited).
 */
export type NodeStatus = string;

export type GraphNode = {
  url: string;
  title: string;
  status: NodeStatus;
  /** Body links of the document (typed rel- edges do not count). */
  linkCount: number;
  /**
   * Set when the graph holds only some of the document's links: it had more
   * than a document may contribute, or the graph had no room for the rest
   * (src/broker/graph/graph-bounds.ts).
   */
  linksCut?: boolean;
  /**
   * For an `error` node: why the fetch failed, in words fit for the agent (a
   * world gateway error's own message, src/broker/worlds/gateway.ts), so a
   * crawl that timed out does not read like a missing document.
   */
  failure?: string;
};

export type GraphEdge = {
  from: string;
  to: string;
  /** Typed-relation predicate; "" for a plain body link. */
  rel: string;
  /** Link text of the first labeled occurrence. */
  label: string;
  /** Anchor (no `#`) of the section holding that occurrence; "" above the first heading. */
  anchor: string;
  /** Occurrences aggregated into this edge, at least 1. */
  count: number;
};

/** The crawler's statuses for documents it did not read. */
export const UnobservedStatus = { Error: 'error', External: 'external', Undiscovered: '' } as const;

/**
 * Whether the document was actually read, so its outgoing edge set is complete
 * (graphstore `observedStatus`): `external`, `error` and blank carry nothing.
 */
export function isObservedStatus(status: NodeStatus): boolean {
  return !unobserved.has(status);
}

// Beyond the reference's three: a world that answered `rate-limited` or
// `server-error` did not show the document either, so those answers must not
// blank what an earlier crawl read (the rule of latebit-io/demarkus#222).
const unobserved: ReadonlySet<string> = new Set([
  UnobservedStatus.Error,
  UnobservedStatus.External,
  UnobservedStatus.Undiscovered,
  'rate-limited',
  'server-error',
]);

/** The {from, to, rel} identity as one map key; NUL never occurs in a canonical URL or predicate. */
export function edgeKey(edge: Pick<GraphEdge, 'from' | 'to' | 'rel'>): string {
  return `${edge.from}\u0000${edge.to}\u0000${edge.rel}`;
}

/**
 * Folds one more occurrence into an aggregated edge (graph.AddEdgeInfo): counts
 * add up, and the first occurrence with a label supplies label and anchor; an
 * unlabeled edge takes the first anchor it sees.
 */
export function foldOccurrence(current: GraphEdge, next: GraphEdge): void {
  current.count += Math.max(next.count, 1);
  if (current.label === '' && next.label !== '') {
    current.label = next.label;
    current.anchor = next.anchor;
  } else if (current.label === '' && current.anchor === '' && next.anchor !== '') {
    current.anchor = next.anchor;
  }
}

/**
 * Byte order of the UTF-8 encodings, as Go's `<` on strings sorts. UTF-16 code
 * unit order agrees except between astral characters and U+E000..U+FFFF.
 */
export function compareUtf8(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (x < 0xd800 && y < 0xd800) return x - y;
    return (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0);
  }
  return a.length - b.length;
}

/** Edges in export order: from, to, rel (graphstore.BuildExport). */
export function compareEdges(
  a: Pick<GraphEdge, 'from' | 'to' | 'rel'>,
  b: Pick<GraphEdge, 'from' | 'to' | 'rel'>,
): number {
  return compareUtf8(a.from, b.from) || compareUtf8(a.to, b.to) || compareUtf8(a.rel, b.rel);
}
