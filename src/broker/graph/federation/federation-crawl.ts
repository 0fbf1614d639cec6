import type { Identity } from '../../identity.ts';
import type { WorldGateway, WorldInfo } from '../../worlds/gateway.ts';
import { knownWorldsHint } from '../../worlds/world-aliases.ts';
import { renderContentIndex, type IndexEntry } from '../../../protocol/render/content-index.ts';
import { compareUtf8 } from '../model.ts';
import { runPool } from '../../../concurrency/pool.ts';
import { WorldDirectory } from '../world-urls.ts';
import { buildCrawlState, crawlStatePath } from './crawl-state.ts';
import type { FederationCrawlState } from './crawl-record.ts';
import { graphOutputPath, indexOutputPath, isHubOutput, loadPreviousCrawl } from './hub-outputs.ts';
import { publishOutput, type HubWriter, type PublishOutcome } from './hub-publish.ts';
import { crawlWorld, type WorldCrawl, type WorldCrawlCounts } from './world-crawl.ts';
import { oversizedGraphDetail } from './oversized-graph.ts';
import { graphWithinShares, shareDetail, type SharedExport } from './export-share.ts';
import { errorWithCode } from '../../../errors/coded-error.ts';

/**
 * The federation crawl behind `demarkus-broker crawl`: walk every configured world, then publish `/graph.md`, each
 * world's content index and the crawl state to the hub, so a cold broker
 * seeds backlinks at once. Incremental: the previous run (given, or read back
 * from the hub) supplies an etag per document, unchanged documents answer
 * `not-modified` and keep their rows, and outputs whose content did not
 * change are not republished. Runs once and returns a summary; it throws only
 * when the hub is not a configured world.
 */

export type FederationLimits = {
  /** Per world: documents read, LIST requests, directory depth. */
  maxDocumentsPerWorld: number;
  maxListsPerWorld: number;
  maxDepth: number;
  /**
   * Requests in flight per world (8: the transport's streams per connection, so
   * none waits for a stream), and worlds crawled at once.
   */
  fetchWorkers: number;
  worldWorkers: number;
};

export const defaultFederationLimits: FederationLimits = {
  maxDocumentsPerWorld: 10_000,
  maxListsPerWorld: 4096,
  maxDepth: 16,
  fetchWorkers: 8,
  // Each world is its own server and connection: crawling 4 at a time left most
  // of a federation idle behind the slowest worlds of each wave.
  worldWorkers: 16,
};

/** The identity the crawl writes as when none is given; the gateway must allow it to write to the hub. */
export const crawlerIdentity: Identity = {
  subject: 'demarkus-broker-crawl',
  email: 'crawl@demarkus-broker.invalid',
  emailVerified: true,
  groups: [],
  issuedBy: 'broker',
};

export type FederationCrawlOptions = {
  gateway: WorldGateway;
  /** Name of the hub world that receives the outputs. */
  hub: string;
  now: () => Date;
  /** The previous run's `state`; without it the previous run is read back from the hub. */
  previous?: FederationCrawlState;
  identity?: Identity;
  /** Versions the hub keeps of each output (default 20; 0 keeps all). */
  retention?: number;
  limits?: Partial<FederationLimits>;
  signal?: AbortSignal;
};

/** A world's line of the summary: its crawl's counts (world-crawl.ts), plus what the export and the records say. */
export type WorldSummary = WorldCrawlCounts & {
  world: string;
  address: string;
  /** Links of this world left out of /graph.md to keep it within the world's share (export-share.ts). */
  exportLinksCut: number;
  /** Documents of this world whose rows were left out of /graph.md for the same reason. */
  exportDocumentsCut: number;
  documents: number;
};

export type FederationCrawlSummary = {
  hub: string;
  previousFrom: 'argument' | 'hub';
  worlds: WorldSummary[];
  documentsFetched: number;
  documentsSkipped: number;
  documentsFailed: number;
  nodes: number;
  edges: number;
  published: PublishOutcome[];
  /** Hand this to the next run as `previous`. */
  state: FederationCrawlState;
};

export class FederationCrawlError extends errorWithCode('ERR_HUB_NOT_CONFIGURED') {}

export async function runFederationCrawl(options: FederationCrawlOptions): Promise<FederationCrawlSummary> {
  const { gateway, hub } = options;
  const worlds = gateway.list();
  if (!worlds.some((w) => w.name === hub))
    throw new FederationCrawlError(
      `hub world "${hub}" is not configured (${knownWorldsHint(worlds)}): the crawl publishes only to worlds in the config's worlds (discovered worlds are read-only); add a world named "${hub}" to worlds, or set the config's hub (chart value crawl.hub) to a configured world`,
    );
  const limits = { ...defaultFederationLimits, ...options.limits };
  const signal = options.signal;
  const identity = options.identity ?? crawlerIdentity;
  const previous =
    options.previous ?? (await loadPreviousCrawl(gateway, hub, worlds, options.now(), identity.email, signal));
  const crawls = await crawlAllWorlds(gateway, worlds, hub, previous, limits, signal);
  const crawledAt = options.now();
  const writer: HubWriter = {
    gateway,
    hub,
    identity,
    retention: options.retention ?? 20,
    outputs: new Map(previous.outputs),
    ...(signal ? { signal } : {}),
  };
  const graph = graphWithinShares(crawls, crawledAt);
  const published: PublishOutcome[] = [];
  for (const crawl of crawls) published.push(await publishIndex(writer, crawl, crawledAt));
  const graphOutcome = await publishOutput(writer, graphOutputPath, graph.body, (bytes) =>
    oversizedGraphDetail(bytes, crawls),
  );
  if (graph.cut.size > 0 && graphOutcome.outcome !== 'too-large') graphOutcome.detail = shareDetail(graph);
  published.push(graphOutcome);
  // The etags may only move forward together with the graph rows they vouch for.
  const graphCurrent = graphOutcome.outcome === 'published' || graphOutcome.outcome === 'unchanged';
  for (const crawl of crawls) {
    const path = crawlStatePath(crawl.world.name);
    if (!graphCurrent) published.push({ path, outcome: 'withheld', detail: `${graphOutputPath} was not published` });
    else
      published.push(
        await publishOutput(
          writer,
          path,
          buildCrawlState(
            crawl.world.name,
            crawledAt,
            etagsOf(crawl, graph.cut.get(crawl.world.name)?.documents),
            crawl.changedAfter,
          ),
        ),
      );
  }
  return summarize(options, crawls, graph, published, writer.outputs);
}

async function crawlAllWorlds(
  gateway: WorldGateway,
  worlds: readonly WorldInfo[],
  hub: string,
  previous: FederationCrawlState,
  limits: FederationLimits,
  signal: AbortSignal | undefined,
): Promise<WorldCrawl[]> {
  const directory = new WorldDirectory(worlds);
  const crawls: WorldCrawl[] = [];
  const walk = {
    maxDocuments: limits.maxDocumentsPerWorld,
    maxLists: limits.maxListsPerWorld,
    maxDepth: limits.maxDepth,
    workers: limits.fetchWorkers,
  };
  await runPool(
    [...worlds],
    async (world) => {
      crawls.push(
        await crawlWorld(gateway, world, {
          limits: walk,
          directory,
          previous: previous.worlds.get(world.name),
          ...(world.name === hub ? { exclude: isHubOutput } : {}),
          ...(signal ? { signal } : {}),
        }),
      );
    },
    { workers: limits.worldWorkers, signal },
  );
  return crawls.sort((a, b) => compareUtf8(a.world.name, b.world.name));
}

/** A world's index is published only when its crawl was complete (as mark_index refuses an incomplete one). */
function publishIndex(writer: HubWriter, crawl: WorldCrawl, crawledAt: Date): Promise<PublishOutcome> | PublishOutcome {
  const path = indexOutputPath(crawl.world);
  if (!crawl.complete)
    return { path, outcome: 'withheld', detail: 'crawl incomplete; an authoritative index needs every document' };
  const server = `mark://${crawl.world.name}`;
  const entries: IndexEntry[] = [...crawl.records]
    .filter(([, r]) => r.contentHash !== '')
    .map(([p, r]) => ({ hash: r.contentHash, server, path: p }))
    .sort((a, b) => compareUtf8(a.path, b.path));
  return publishOutput(writer, path, renderContentIndex(server, crawledAt, entries));
}

/**
 * The etags the next crawl reads its records back from the hub with. A
 * document cut to its world's share (its links, or its row) gets none: its
 * record would be rebuilt from its cut /graph.md rows and, unchanged, kept so
 * for good; without an etag it is read again, and cut again only while its
 * world still holds more than its share.
 */
function etagsOf(crawl: WorldCrawl, cutToShare: ReadonlySet<string> | undefined): Map<string, string> {
  const etags = new Map<string, string>();
  for (const [path, record] of crawl.records)
    if (record.etag !== '' && cutToShare?.has(path) !== true) etags.set(path, record.etag);
  return etags;
}

function summarize(
  options: FederationCrawlOptions,
  crawls: readonly WorldCrawl[],
  graph: SharedExport,
  published: PublishOutcome[],
  outputs: Map<string, string>,
): FederationCrawlSummary {
  const worlds = crawls.map((c) => ({
    world: c.world.name,
    address: c.world.address,
    listed: c.listed,
    fetched: c.fetched,
    skipped: c.skipped,
    skippedByCatalog: c.skippedByCatalog,
    failed: c.failed,
    linksCut: c.linksCut,
    exportLinksCut: graph.cut.get(c.world.name)?.linksLeftOut ?? 0,
    exportDocumentsCut: graph.cut.get(c.world.name)?.documentsLeftOut ?? 0,
    documents: c.records.size,
    complete: c.complete,
    problems: c.problems,
  }));
  const total = (key: 'fetched' | 'skipped' | 'failed') => worlds.reduce((sum, w) => sum + w[key], 0);
  const state: FederationCrawlState = {
    worlds: new Map(crawls.map((c) => [c.world.name, { records: c.records, changedAfter: c.changedAfter }])),
    outputs,
  };
  // Worlds no longer configured drop out of the state, and their rows out of /graph.md.
  return {
    hub: options.hub,
    previousFrom: options.previous ? 'argument' : 'hub',
    worlds,
    documentsFetched: total('fetched'),
    documentsSkipped: total('skipped'),
    documentsFailed: total('failed'),
    nodes: graph.nodes,
    edges: graph.edges,
    published,
    state,
  };
}
