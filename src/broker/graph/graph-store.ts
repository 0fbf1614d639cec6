import { Status } from '../../protocol/status.ts';
import { EdgeIndex } from './edge-index.ts';
import { defaultGraphBounds, GraphBudget, nodeHolder, type GraphBounds } from './graph-bounds.ts';
import { worldOfUrl } from './link-url.ts';
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
 *
 * Bounds (src/broker/graph/graph-bounds.ts): a document recorded keeps at most
 * its share of links, and a new document the store or its world's share has
 * no room for is not recorded; nothing held is evicted to make room.
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

/** What a merge or a seed did: documents recorded, refused for want of room, and recorded with links cut. */
export type MergeOutcome = { upserted: number; notRecorded: string[]; linksCut: string[] };

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
  readonly #budget: GraphBudget;
  /**
   * Who each node is charged to (src/broker/graph/graph-bounds.ts). An edge
   * source's links are always charged to the source's own world
   * (`worldOfUrl`), so that holder is derived, not stored.
   */
  readonly #nodeHolders = new Map<string, string>();

  constructor(options: { now?: () => Date; bounds?: Partial<GraphBounds> } = {}) {
    this.#now = options.now ?? (() => new Date());
    this.#budget = new GraphBudget({ ...defaultGraphBounds, ...options.bounds });
  }

  /** Integrates a crawl: what it recorded, refused for want of room, and cut. */
  merge(graph: CrawledGraph, etags: ReadonlyMap<string, string> = new Map()): MergeOutcome {
    const now = this.#now().getTime();
    const outcome: MergeOutcome = { upserted: 0, notRecorded: [], linksCut: [] };
    const refreshed = new Set<string>();
    const linkers = firstLinkers(graph.edges);
    const bySource = groupBySource(graph.edges);
    for (const node of graph.nodes.values()) {
      if (!this.#worthRecording(node, linkers)) continue;
      const holder = nodeHolder(node.url, node.status, linkers.get(node.url));
      if (!isObservedStatus(node.status)) {
        if (this.#nodes.has(node.url)) continue;
        // Without the crawl's `failure`: it is one caller's moment ("your calls are queued ..."),
        // and the shared graph answers every caller.
        const { url, title, status, linkCount } = node;
        if (this.#putNode({ url, title, status, linkCount, etag: '', crawledAt: now }, holder)) outcome.upserted++;
        else outcome.notRecorded.push(node.url);
        continue;
      }
      const edges = bySource.get(node.url) ?? [];
      // A new document is recorded with its links or not at all (a node that
      // seems to link nowhere would mislead); a known one keeps what fits.
      const fits = this.#nodes.has(node.url) || edges.length === 0 || this.#budget.edgeRoom(worldOfUrl(node.url)) > 0;
      if (!fits || !this.#putNode({ ...node, etag: etags.get(node.url) ?? '', crawledAt: now }, holder)) {
        outcome.notRecorded.push(node.url);
        continue;
      }
      refreshed.add(node.url);
      outcome.upserted++;
      this.#setEdges(node.url, edges);
      this.#seedOrigins.delete(node.url);
      if (this.#nodes.get(node.url)?.linksCut === true) outcome.linksCut.push(node.url);
    }
    // Only read documents have outgoing edges; any other source the store
    // holds gains its edges without losing the ones it had.
    const refused = new Set(outcome.notRecorded);
    for (const [url, edges] of bySource)
      if (!refreshed.has(url) && !refused.has(url)) this.#setEdges(url, [...this.#edges.from(url), ...edges]);
    return outcome;
  }

  /** Records or replaces a node; a new one only when the store and its holder have room. */
  #putNode(node: StoredNode, holder: string): boolean {
    const previous = this.#nodeHolders.get(node.url);
    if (previous === undefined && !this.#budget.hasNodeRoom(holder)) return false;
    if (previous !== undefined) this.#budget.chargeNodes(previous, -1);
    this.#budget.chargeNodes(holder, 1);
    this.#nodeHolders.set(node.url, holder);
    this.#nodes.set(node.url, node);
    return true;
  }

  #deleteNode(url: string): void {
    const holder = this.#nodeHolders.get(url);
    if (holder === undefined) return;
    this.#budget.chargeNodes(holder, -1);
    this.#nodeHolders.delete(url);
    this.#nodes.delete(url);
  }

  /**
   * Replaces the edges from `source` with as many as its world has room for
   * (a document's share at most), charged to that world; marks the source's
   * node when some were left out.
   */
  #setEdges(source: string, edges: readonly GraphEdge[]): void {
    this.#dropEdges(source);
    const holder = worldOfUrl(source);
    const cut = this.#edges.replaceFrom(source, edges, this.#budget.edgeRoom(holder));
    const kept = this.#edges.from(source).length;
    if (kept > 0) this.#budget.chargeEdges(holder, kept);
    const node = this.#nodes.get(source);
    if (cut && node !== undefined) node.linksCut = true;
  }

  /** Drops the edges from `source` and gives their room back to its world, which `#setEdges` charged. */
  #dropEdges(source: string): void {
    const held = this.#edges.from(source).length;
    if (held === 0) return;
    this.#budget.chargeEdges(worldOfUrl(source), -held);
    this.#edges.dropFrom(source);
  }

  /**
   * A document the crawl did not find (any answer but `ok`) is news to the
   * shared graph only when the graph holds it already or something links to
   * it (a broken link). Otherwise it is just the URL a caller asked for: kept,
   * every made-up start URL would stay in the store, which every caller reads,
   * for the life of the process (test/security/graph-planted-nodes.test.ts).
   */
  #worthRecording(node: GraphNode, linkedByCrawl: ReadonlyMap<string, string>): boolean {
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
   * Seeded rows are held to the same bounds as crawled ones. For the worlds
   * in `partial` (the export's `## Partial` section: the federation crawl left
   * part of them out to fit 1 MiB, src/broker/graph/federation/export-share.ts)
   * a missing row is no news, so their rows the seed does not list are kept.
   * A missing link is news only from a document listed with fewer links than
   * its world's per-document bound, which the cut never touched: its links are
   * replaced; one listed with the bound or more may have lost links, so its
   * links are added to what the store holds.
   */
  seedFromExport(
    allNodes: readonly GraphNode[],
    allEdges: readonly GraphEdge[],
    origin?: SeedOrigin,
    partial: ReadonlyMap<string, number> = new Map(),
  ): MergeOutcome {
    const speaksFor = (url: string) =>
      origin === undefined || origin.kind === 'hub' || worldOfUrl(url) === origin.world;
    const nodes = allNodes.filter((node) => speaksFor(node.url));
    const edges = allEdges.filter((edge) => speaksFor(edge.from));
    const outcome: MergeOutcome = { upserted: 0, notRecorded: [], linksCut: [] };
    const linkers = firstLinkers(edges);
    const listed = new Set<string>();
    for (const node of nodes) {
      if (this.isAuthoritative(node.url)) continue;
      const seededNode = {
        url: node.url,
        title: node.title,
        status: node.status,
        linkCount: node.linkCount,
        etag: '',
        crawledAt: 0,
      };
      if (!this.#putNode(seededNode, nodeHolder(node.url, node.status, linkers.get(node.url)))) {
        outcome.notRecorded.push(node.url);
        continue;
      }
      listed.add(node.url);
      this.#remember(node.url, origin);
      outcome.upserted++;
    }
    // Sources whose edge set the seed replaces: every source it observed
    // (even one whose set went to zero) and every edge source, never an
    // authoritative one.
    const replaced = new Set<string>();
    // A refused node's edges are refused with it.
    const refused = new Set(outcome.notRecorded);
    for (const node of nodes)
      if (isObservedStatus(node.status) && !this.isAuthoritative(node.url) && !refused.has(node.url))
        replaced.add(node.url);
    for (const edge of edges) if (!this.isAuthoritative(edge.from) && !refused.has(edge.from)) replaced.add(edge.from);
    const bySource = groupBySource(edges);
    const inPartialWorld = (url: string) => partial.has(worldOfUrl(url));
    // The export counts a document's links as its rows (one per distinct link,
    // world-crawl.ts `aggregate`), so the seed's rows are compared, not the
    // links left once URLs are translated, which may merge two spellings.
    const mayBeCut = (url: string, seeded: readonly GraphEdge[]) => {
      const bound = partial.get(worldOfUrl(url));
      return bound !== undefined && seeded.length >= bound;
    };
    for (const url of replaced) {
      const seeded = bySource.get(url) ?? [];
      this.#setEdges(url, mayBeCut(url, seeded) ? [...this.#edges.from(url), ...seeded] : seeded);
      this.#remember(url, origin);
      if (this.#nodes.get(url)?.linksCut === true) outcome.linksCut.push(url);
    }
    if (origin !== undefined)
      this.#forgetUnlisted(origin, (url) => replaced.has(url) || listed.has(url) || inPartialWorld(url));
    return outcome;
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
      this.#dropEdges(url);
      if (!this.isAuthoritative(url)) this.#deleteNode(url);
      this.#seedOrigins.delete(url);
    }
  }

  /**
   * `origin`'s `/graph.md` is gone or lists nothing: every row it seeded goes
   * (as `#forgetUnlisted` drops those a republished one leaves out), and its
   * etag, so the next one is read whole.
   */
  withdrawSeed(origin: SeedOrigin): void {
    this.#forgetUnlisted(origin, () => false);
    this.#seedEtags.delete(origin.world);
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
}

/** The first source linking to each target: who a broken link's node is charged to. */
function firstLinkers(edges: Iterable<GraphEdge>): Map<string, string> {
  const linkers = new Map<string, string>();
  for (const edge of edges) if (!linkers.has(edge.to)) linkers.set(edge.to, edge.from);
  return linkers;
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
