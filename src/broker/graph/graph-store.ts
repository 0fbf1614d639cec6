import { Status } from '../../protocol/status.ts';
import { buildExport } from './graph-export.ts';
import { EdgeIndex } from './edge-index.ts';
import { compareUtf8, isObservedStatus, type GraphEdge, type GraphNode } from './model.ts';
import type { CrawledGraph } from './crawled-graph.ts';

/**
 * The broker's link graph (Go `client/graphstore/store.go` `Store`):
 * nodes by URL and edges by {from, to, rel}, indexed by source and by target
 * so backlink queries and per-source replacement cost what they return, not
 * the size of the graph.
 *
 * Merge rules ("local crawls take precedence"):
 * - a crawled node the crawl did not read (`error`, `external`, blank) never
 *   replaces a stored one; only never-seen nodes are recorded (latebit-io/demarkus#222: a failed
 *   re-crawl must not blank titles);
 * - a node the crawl read replaces the stored one and becomes authoritative;
 *   all stored edges from it are dropped and the crawl's edges upserted;
 * - a seed (`/graph.md`) never touches authoritative nodes or their edges, and
 *   replaces the edge sets of the sources it covers; what an earlier seed from
 *   the same `/graph.md` listed and this one does not is forgotten;
 * - a world's own seed speaks only for that world's documents: nodes and edge
 *   sources elsewhere are dropped, so a writer of one world cannot plant
 *   titles or links on another's documents. The hub's seed (the federation
 *   crawl's output) speaks for every world. Seeded sources remember their
 *   origin, which backlinks carry so that answers show seeded text as quoted
 *   data from that origin.
 */

export type StoredNode = GraphNode & {
  etag: string;
  /** Epoch ms of the local crawl that read it; 0 for seeded nodes. */
  crawledAt: number;
};

export type StoredEdge = GraphEdge;

/** Where an edge was learned: read by this broker (`crawl`), or from a world's published `/graph.md` (`seed`). */
export type Provenance = 'crawl' | 'seed';
/** Which `/graph.md` a seeded row came from: the hub's federation crawl, or one world's own. */
export type SeedOrigin = { kind: 'hub' | 'world'; world: string };

export type BacklinkEntry = {
  url: string;
  title: string;
  status: string;
  rel: string;
  label: string;
  anchor: string;
  count: number;
  provenance: Provenance;
  /** Present when the source and its edges were seeded, not crawled by this broker. */
  origin?: SeedOrigin;
};

export class GraphStore {
  readonly #nodes = new Map<string, StoredNode>();
  readonly #edges = new EdgeIndex();
  readonly #seedEtags = new Map<string, string>();
  /** Seeded nodes and edge sources by URL; a crawl that reads one takes it over. */
  readonly #seedOrigins = new Map<string, SeedOrigin>();
  readonly #now: () => Date;

  constructor(options: { now?: () => Date } = {}) {
    this.#now = options.now ?? (() => new Date());
  }

  /** Integrates a crawl; returns the number of nodes upserted. */
  merge(graph: CrawledGraph, etags: ReadonlyMap<string, string> = new Map()): number {
    const now = this.#now().getTime();
    let upserted = 0;
    const refreshed = new Set<string>();
    const linked = new Set<string>();
    for (const edge of graph.edges) linked.add(edge.to);
    for (const node of graph.nodes.values()) {
      if (!this.#worthRecording(node, linked)) continue;
      if (!isObservedStatus(node.status)) {
        if (!this.#nodes.has(node.url)) {
          this.#nodes.set(node.url, { ...node, etag: '', crawledAt: now });
          upserted++;
        }
        continue;
      }
      this.#nodes.set(node.url, { ...node, etag: etags.get(node.url) ?? '', crawledAt: now });
      refreshed.add(node.url);
      upserted++;
    }
    const bySource = groupBySource(graph.edges);
    for (const url of refreshed) {
      this.#edges.replaceFrom(url, bySource.get(url) ?? []);
      this.#seedOrigins.delete(url);
    }
    // Only read documents have outgoing edges; any other source gains its edges without losing the ones it had.
    for (const [url, edges] of bySource)
      if (!refreshed.has(url)) this.#edges.replaceFrom(url, [...this.#edges.from(url), ...edges]);
    return upserted;
  }

  /**
   * A document the crawl did not find (any answer but `ok`) is news to the
   * shared graph only when the graph holds it already or something links to
   * it (a broken link). Otherwise it is just the URL a caller asked for: kept,
   * every made-up start URL would stay in the store, which every caller reads,
   * for the life of the process (test/security/graph-planted-nodes.test.ts).
   */
  #worthRecording(node: GraphNode, linkedByCrawl: ReadonlySet<string>): boolean {
    if (node.status === Status.Ok || this.#nodes.has(node.url) || linkedByCrawl.has(node.url)) return true;
    return this.#edges.into(node.url).length > 0;
  }

  /** A node read by a local crawl: observed status and a crawl time (seeds have none). */
  isAuthoritative(url: string): boolean {
    const node = this.#nodes.get(url);
    return node !== undefined && isObservedStatus(node.status) && node.crawledAt !== 0;
  }

  /**
   * Merges a parsed `/graph.md` (URLs already translated); returns the number
   * of nodes seeded. With an `origin`, a world's seed keeps only its own
   * documents (as nodes and as edge sources), and what is kept remembers it.
   */
  seedFromExport(allNodes: readonly GraphNode[], allEdges: readonly GraphEdge[], origin?: SeedOrigin): number {
    const speaksFor = (url: string) =>
      origin === undefined || origin.kind === 'hub' || url.startsWith(`mark://${origin.world}/`);
    const nodes = allNodes.filter((node) => speaksFor(node.url));
    const edges = allEdges.filter((edge) => speaksFor(edge.from));
    let seeded = 0;
    const listed = new Set<string>();
    for (const node of nodes) {
      if (this.isAuthoritative(node.url)) continue;
      listed.add(node.url);
      this.#nodes.set(node.url, {
        url: node.url,
        title: node.title,
        status: node.status,
        linkCount: node.linkCount,
        etag: '',
        crawledAt: 0,
      });
      this.#remember(node.url, origin);
      seeded++;
    }
    // Sources whose edge set the seed replaces: every source it observed
    // (even one whose set went to zero) and every edge source, never an
    // authoritative one.
    const replaced = new Set<string>();
    for (const node of nodes)
      if (isObservedStatus(node.status) && !this.isAuthoritative(node.url)) replaced.add(node.url);
    for (const edge of edges) if (!this.isAuthoritative(edge.from)) replaced.add(edge.from);
    const bySource = groupBySource(edges);
    for (const url of replaced) {
      this.#edges.replaceFrom(url, bySource.get(url) ?? []);
      this.#remember(url, origin);
    }
    if (origin !== undefined) this.#forgetUnlisted(origin, (url) => replaced.has(url) || listed.has(url));
    return seeded;
  }

  /**
   * A `/graph.md` is its writer's whole export, so a document an earlier seed
   * from the same origin listed and this one does not was deleted, archived or
   * read-protected since: its row and edges go (the reference keeps them until
   * the pod restarts, so running pods disagreed with new ones and kept a
   * protected document's title and links).
   */
  #forgetUnlisted(origin: SeedOrigin, covers: (url: string) => boolean): void {
    for (const [url, from] of this.#seedOrigins) {
      if (from.kind !== origin.kind || from.world !== origin.world || covers(url)) continue;
      this.#edges.dropFrom(url);
      if (!this.isAuthoritative(url)) this.#nodes.delete(url);
      this.#seedOrigins.delete(url);
    }
  }

  #remember(url: string, origin: SeedOrigin | undefined): void {
    if (origin === undefined) this.#seedOrigins.delete(url);
    else this.#seedOrigins.set(url, origin);
  }

  /** One entry per edge into `url`, with the source's title and status; sorted by URL, then rel. */
  backlinks(url: string): BacklinkEntry[] {
    const entries: BacklinkEntry[] = [];
    for (const edge of this.#edges.into(url)) {
      const source = this.#nodes.get(edge.from);
      const origin = this.#seedOrigins.get(edge.from);
      entries.push({
        url: edge.from,
        title: source?.title ?? '',
        status: source?.status ?? '',
        rel: edge.rel,
        label: edge.label,
        anchor: edge.anchor,
        count: Math.max(edge.count, 1),
        provenance: this.provenance(edge.from),
        ...(origin === undefined ? {} : { origin: { ...origin } }),
      });
    }
    return entries.sort((a, b) => compareUtf8(a.url, b.url) || compareUtf8(a.rel, b.rel));
  }

  /** An edge's provenance is its source's: only an authoritative source's edges were read by this broker. */
  provenance(sourceUrl: string): Provenance {
    return this.isAuthoritative(sourceUrl) ? 'crawl' : 'seed';
  }

  node(url: string): StoredNode | undefined {
    const node = this.#nodes.get(url);
    return node === undefined ? undefined : { ...node };
  }

  nodes(): IterableIterator<StoredNode> {
    return this.#nodes.values();
  }

  /** Every edge, as stored: read, do not modify. */
  edges(): IterableIterator<StoredEdge> {
    return this.#edges.all();
  }

  edgesFrom(url: string): StoredEdge[] {
    return this.#edges.from(url).map(copyEdge);
  }

  get nodeCount(): number {
    return this.#nodes.size;
  }

  get edgeCount(): number {
    return this.#edges.size;
  }

  /** The last `/graph.md` etag seen for a world, "" when none. */
  seedEtag(world: string): string {
    return this.#seedEtags.get(world) ?? '';
  }

  setSeedEtag(world: string, etag: string): void {
    this.#seedEtags.set(world, etag);
  }

  /** The whole store as `/graph.md` (an empty store still renders the header). */
  exportMarkdown(exportedAt: Date = this.#now()): string {
    return buildExport(exportedAt, this.#nodes.values(), this.#edges.all());
  }
}

function groupBySource(edges: Iterable<GraphEdge>): Map<string, GraphEdge[]> {
  const grouped = new Map<string, GraphEdge[]>();
  for (const edge of edges) {
    const list = grouped.get(edge.from);
    if (list === undefined) grouped.set(edge.from, [edge]);
    else list.push(edge);
  }
  return grouped;
}

function copyEdge(edge: GraphEdge): GraphEdge {
  return { from: edge.from, to: edge.to, rel: edge.rel, label: edge.label, anchor: edge.anchor, count: edge.count };
}
