import type { WorldGateway } from '../worlds/gateway.ts';
import { crawl, defaultCrawlLimits, maxCrawlDepth, type CrawlLimits, type CrawlResult } from './crawler.ts';
import { GraphStore, type BacklinkEntry, type MergeOutcome } from './graph-store.ts';
import { buildExport } from './graph-export.ts';
import { exportPageRows, renderExportPage, showingOnly, type ExportPage } from './export-page.ts';
import { canonicalMarkUrl } from './link-url.ts';
import type { GraphEdge, GraphNode } from './model.ts';
import { GraphReadCheck, type GraphReadCheckOptions } from './read-check.ts';
import { readWithBackoff } from './read-retry.ts';
import { RefreshQueue, refreshesOwedPerWorld, refreshesWaitingPerWorld } from './refresh-queue.ts';
import { GraphSeeder, seedPath, type SeedLog } from './seeder.ts';
import { WorldDirectory } from './world-urls.ts';
import { defaultHubWorld } from '../hub-world.ts';

/**
 * The broker's graph as one service: the in-memory store, its seeder and the
 * crawler, all reading worlds through the gateway. One instance per broker
 * process; the graph tools and mark_explore share it.
 */
export type BrokerGraphOptions = {
  gateway: WorldGateway;
  now?: () => Date;
  log?: SeedLog;
  seedIntervalMs?: number;
  /** The hub world, whose `/graph.md` may speak for every world (broker config `hub`; default `root`, src/broker/hub-world.ts). */
  hub?: string;
  /**
   * Tells the other replicas that this one wrote a world's `/graph.md`
   * (Redis pub/sub in a replicated broker); they call `heardPublished`.
   */
  announce?: (world: string) => void;
  /** Overrides for mark_graph's node and worker bounds (depth comes from the call). */
  limits?: Partial<Pick<CrawlLimits, 'maxNodes' | 'workers'>>;
  /** Read checks' per-world budget: who hears its refusals (the broker's metrics), its clock in tests. */
  readCheck?: GraphReadCheckOptions;
};

/**
 * A graph answer cut to what its caller may read now (./read-check.ts); `unchecked`: documents
 * left out only because the call's bound on read checks, or its world's budget of them, was
 * reached (asking again checks more).
 */
export type ShownBacklinks = { entries: BacklinkEntry[]; unchecked: number };
export type ShownExportPage = ExportPage & { unchecked: number };
export type ShownExport = { body: string; nodeCount: number; edgeCount: number; unchecked: number };

/** A crawl's result, and what the shared graph recorded of it (`recorded.notRecorded`: no room for them). */
export type GraphCrawl = CrawlResult & { startUrl: string; recorded: MergeOutcome };

export class BrokerGraph {
  readonly gateway: WorldGateway;
  readonly store: GraphStore;
  readonly seeder: GraphSeeder;
  readonly now: () => Date;
  readonly #limits: Pick<CrawlLimits, 'maxNodes' | 'workers'>;
  readonly #refreshes: RefreshQueue;
  readonly #announce: (world: string) => void;
  readonly #log: SeedLog | undefined;
  readonly #hub: string;
  readonly #readCheck: GraphReadCheck;

  constructor(options: BrokerGraphOptions) {
    this.gateway = options.gateway;
    this.now = options.now ?? (() => new Date());
    this.store = new GraphStore({ now: this.now });
    this.seeder = new GraphSeeder({
      gateway: options.gateway,
      store: this.store,
      now: this.now,
      ...(options.seedIntervalMs === undefined ? {} : { intervalMs: options.seedIntervalMs }),
      ...(options.hub === undefined ? {} : { hub: options.hub }),
      ...(options.log ? { log: options.log } : {}),
    });
    this.#hub = options.hub ?? defaultHubWorld;
    this.#readCheck = new GraphReadCheck(options.readCheck);
    this.#announce = options.announce ?? (() => {});
    this.#log = options.log;
    this.#refreshes = new RefreshQueue({
      forgotten: (world) => this.seeder.forget(world),
      overflowed: (world) =>
        this.#log?.warn(
          { world, waiting: refreshesWaitingPerWorld, owed: refreshesOwedPerWorld },
          "this world reports changes faster than the broker can read them back from it: its oldest waiting graph refreshes are set aside and read once its waiting ones are done (past the owed bound its /graph.md is read again at the next seeding instead); if the world answers slowly, check its logs and the broker's broker_world_request_duration_seconds metric for it",
        ),
      failed: (world, key, error) =>
        this.#log?.warn({ world, url: key, err: String(error) }, 'graph refresh owed after a change failed'),
    });
    this.#limits = {
      maxNodes: options.limits?.maxNodes ?? defaultCrawlLimits.maxNodes,
      workers: options.limits?.workers ?? defaultCrawlLimits.workers,
    };
  }

  /**
   * Seeds from every configured world's `/graph.md` (throttled per world).
   * With `url`, waits only for the hub's and that document's world's, the
   * seeds that can change what the graph says of it; the others go on in the
   * background (GraphSeeder.seedFor).
   */
  seed(signal?: AbortSignal, url?: string): Promise<void> {
    if (url === undefined) return this.seeder.seedAll(signal);
    const worlds = this.#worlds();
    const world = this.#lineOf(identityIn(worlds, url), worlds);
    return this.seeder.seedFor([this.#hub, ...(world === '' ? [] : [world])], signal);
  }

  /** The graph identity of a tool URL: identity form, world spellings translated. */
  identity(url: string): string {
    return identityIn(this.#worlds(), url);
  }

  /** The configured worlds as they are now (discovery may change them between calls). */
  #worlds(): WorldDirectory {
    return new WorldDirectory(this.gateway.list());
  }

  /**
   * Crawls from `url` (depth clamped to 1..5) and merges the result into the
   * store. Every document is read through `reader`: for mark_graph, the
   * caller's view of the gateway (src/broker/worlds/caller-gateway.ts), so the
   * reads are charged to the caller's fair share of each world and made with
   * no more than the caller's rights, never on the broker's own share, which
   * its seeding and refreshes need.
   */
  async crawl(
    url: string,
    reader: WorldGateway,
    depth: number = defaultCrawlLimits.maxDepth,
    signal?: AbortSignal,
  ): Promise<GraphCrawl> {
    const worlds = this.#worlds();
    const startUrl = identityIn(worlds, url);
    const limits: CrawlLimits = { ...this.#limits, maxDepth: Math.max(1, Math.min(Math.trunc(depth), maxCrawlDepth)) };
    const fetcher = (world: string, path: string, s: AbortSignal | undefined) =>
      readWithBackoff(reader, world, { verb: 'FETCH', path, ...(s ? { signal: s } : {}) }, { attempts: 3 });
    const result = await crawl(startUrl, fetcher, worlds, limits, signal);
    const recorded = this.store.merge(result.graph, result.etags);
    return { ...result, startUrl, recorded };
  }

  /**
   * Reads one document again and replaces what the graph knows of it (its
   * node and its outgoing edges), without following its links: what a change
   * a world reported needs. Each world's refreshes wait in a line of their own
   * (./refresh-queue.ts): a URL already waiting is not queued twice, one world
   * holds at most `refreshWorkersPerWorld` of the `refreshWorkers` reads, and
   * past `refreshesWaitingPerWorld` waiting the oldest is set aside and read
   * once the world's line drains (docs/operations.md, "Changes pushed by the worlds (WATCH)").
   */
  refresh(url: string): Promise<void> {
    const worlds = this.#worlds();
    const identity = identityIn(worlds, url);
    return this.#refreshes.schedule(this.#lineOf(identity, worlds), identity, () => this.#reread(identity));
  }

  /**
   * `world` resynced: it could not say what changed, so every document of it
   * this broker read (the graph's authoritative nodes) is read again, as owed
   * refreshes in the world's line, at most `refreshesOwedPerWorld` of them.
   * What it only knows from a `/graph.md` comes back with the next seeding.
   */
  resynced(world: string): void {
    const reads = new Map<string, () => Promise<void>>();
    // One directory for the whole walk: the graph holds up to 50,000 nodes, the broker up to 2,000 worlds.
    const worlds = this.#worlds();
    for (const node of this.store.nodes())
      if (this.store.isAuthoritative(node.url) && this.#lineOf(node.url, worlds) === world)
        reads.set(node.url, () => this.#reread(node.url));
    this.#refreshes.owe(world, reads);
  }

  /** Resolves once `world`'s refreshes, owed ones included, are all done (for tests). */
  refreshesSettled(world: string): Promise<void> {
    return this.#refreshes.settled(world);
  }

  /** The world whose line a URL's refresh waits in; a URL outside every configured world is never read (the crawl only records it), its line is ''. */
  #lineOf(identity: string, worlds: WorldDirectory): string {
    return worlds.locate(identity)?.world ?? '';
  }

  async #reread(identity: string): Promise<void> {
    // The worlds as they are when the read starts, not when it was queued (discovery may have changed them meanwhile).
    const worlds = this.#worlds();
    const fetcher = (w: string, path: string, s: AbortSignal | undefined) =>
      readWithBackoff(this.gateway, w, { verb: 'FETCH', path, ...(s ? { signal: s } : {}) }, { attempts: 3 });
    const result = await crawl(identity, fetcher, worlds, { ...this.#limits, maxDepth: 0 });
    const recorded = this.store.merge(result.graph, result.etags);
    if (recorded.notRecorded.length > 0)
      this.#log?.warn({ url: identity }, 'graph refresh not recorded: the link graph has no room for this document');
  }

  /** Backlinks of a document, without seeding, as recorded: for every caller, `readableBacklinks`. */
  backlinks(url: string): BacklinkEntry[] {
    return this.store.backlinks(this.identity(url));
  }

  /**
   * Backlinks of a document, without seeding, from the sources the caller
   * reading through `reader` may read now: the graph keeps what it read while
   * a document was public, and protecting it is no change a world reports.
   */
  async readableBacklinks(url: string, reader: WorldGateway, signal?: AbortSignal): Promise<ShownBacklinks> {
    const entries = this.backlinks(url);
    const { readable, unchecked } = await this.#readCheck.readable(
      entries.map((entry) => entry.url),
      reader,
      { signal },
    );
    return { entries: entries.filter((entry) => readable.has(entry.url)), unchecked };
  }

  /** mark_graph_export's page from `offset`, without the rows of documents the caller may not read now. */
  async readableExportPage(offset: number, reader: WorldGateway, signal?: AbortSignal): Promise<ShownExportPage> {
    const exportedAt = this.now();
    const rows = exportPageRows(this.store.nodes(), this.store.edges(), offset);
    const shows = await this.#readableRows(rows.nodes, rows.edges, reader, signal);
    return { ...renderExportPage(exportedAt, showingOnly(rows, shows)), unchecked: shows.unchecked };
  }

  /** The whole graph as `/graph.md` (mark_graph_publish), without the rows of documents the caller may not read now. */
  async readableExport(reader: WorldGateway, signal?: AbortSignal): Promise<ShownExport> {
    const allNodes = [...this.store.nodes()];
    const allEdges = [...this.store.edges()];
    const shows = await this.#readableRows(allNodes, allEdges, reader, signal);
    const nodes = allNodes.filter(shows.node);
    const edges = allEdges.filter(shows.edge);
    return {
      body: buildExport(this.now(), nodes, edges),
      nodeCount: nodes.length,
      edgeCount: edges.length,
      unchecked: shows.unchecked,
    };
  }

  /**
   * Which rows show: a node row carrying what its document said (a title or a
   * link count) and an edge row (its source's link) only when the caller may
   * read that document now. A row with nothing but a URL (a broken link's
   * target, a document recorded unauthorized) needs no check: the document
   * linking to it shows the URL already.
   */
  async #readableRows(
    nodes: readonly GraphNode[],
    edges: readonly GraphEdge[],
    reader: WorldGateway,
    signal: AbortSignal | undefined,
  ): Promise<{ node: (node: GraphNode) => boolean; edge: (edge: GraphEdge) => boolean; unchecked: number }> {
    const carriesContent = (node: GraphNode) => node.title !== '' || node.linkCount > 0;
    const urls = [...nodes.filter(carriesContent).map((node) => node.url), ...edges.map((edge) => edge.from)];
    const { readable, unchecked } = await this.#readCheck.readable(urls, reader, { signal });
    return {
      node: (node) => !carriesContent(node) || readable.has(node.url),
      edge: (edge) => readable.has(edge.from),
      unchecked,
    };
  }

  /**
   * A write to `world` at `path` succeeded: when it was the world's seed
   * document, this replica re-checks it at its next use and the others are
   * told to do the same, so backlinks agree across replicas without waiting
   * out the seed interval.
   */
  published(world: string, path: string): void {
    if (path !== seedPath) return;
    this.seeder.forget(world);
    this.#announce(world);
  }

  /** Another replica wrote `world`'s `/graph.md`: check it again at the next use. */
  heardPublished(world: string): void {
    this.seeder.forget(world);
  }
}

/** The graph identity of `url` against one snapshot of the configured worlds. */
function identityIn(worlds: WorldDirectory, url: string): string {
  const canonical = canonicalMarkUrl(url);
  return canonical === null ? url : worlds.translate(canonical);
}
