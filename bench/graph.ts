/**
 * Link graph benchmarks, each beside a baseline measured in the same run:
 *  - crawl throughput (documents/s) of generated 1,000- and 10,000-document
 *    worlds through the in-process world handler (no QUIC), against plain
 *    FETCHes of the same documents without link extraction; and the 1,000
 *    world again over real QUIC, with the world server in this process and in
 *    its own process, each as a ratio to the in-process crawl of that world
 *    measured in the same alternated rounds;
 *  - backlink query latency at 10k and 100k edges: the target-indexed store
 *    against a linear scan of the same edges (the Go store's algorithm);
 *  - memory per 100k edges held by the store;
 *  - federation crawl of an unchanged 1,000-document world against its first
 *    crawl (in-process handler).
 * Prints figures and ratios only; nothing here is a pass/fail threshold.
 *
 * Run: node bench/graph.ts [--quick]
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { layFirstVersion } from './lib/lay-store.ts';
import { median, percentile } from './lib/measure.ts';
import { makeScratchDirectory, removeScratchDirectory, stopOnExit } from './lib/scratch.ts';
import { openWorld, type World } from '../src/world/world.ts';
import { startWorldServer } from '../src/world/world-server.ts';
import { generateDevCertificate } from '../src/transport/tls.ts';
import { MarkClient, type MarkCall } from '../src/transport/mark-client.ts';
import { encodeRequest } from '../src/protocol/request.ts';
import type { MarkResponse } from '../src/protocol/response.ts';
import { generateToken, hashToken } from '../src/protocol/token.ts';
import type { Identity } from '../src/broker/identity.ts';
import type { WorldGateway, WorldInfo } from '../src/broker/worlds/gateway.ts';
import { crawl } from '../src/broker/graph/crawler.ts';
import { WorldDirectory } from '../src/broker/graph/world-urls.ts';
import { GraphStore } from '../src/broker/graph/graph-store.ts';
import { compareUtf8, type GraphEdge } from '../src/broker/graph/model.ts';
import { runPool } from '../src/concurrency/pool.ts';
import { CrawledGraph } from '../src/broker/graph/crawled-graph.ts';
import { documentLinks } from '../src/broker/graph/document-links.ts';
import { runFederationCrawl } from '../src/broker/graph/federation/federation-crawl.ts';
import { startWorldProcess, type WorldProcess } from '../test/cli/cli-process.ts';

export type GraphBenchOptions = {
  crawlSizes?: readonly number[];
  quicCrawlSize?: number;
  backlinkEdges?: readonly number[];
  federationSize?: number;
  quicFederationSize?: number;
  queries?: number;
};

export async function runGraphBenchmark(options: GraphBenchOptions = {}): Promise<string[]> {
  const lines: string[] = [];
  for (const size of options.crawlSizes ?? [1000, 10_000]) lines.push(...(await crawlThroughput(size)));
  if ((options.quicCrawlSize ?? 1000) > 0) lines.push(...(await quicCrawlThroughput(options.quicCrawlSize ?? 1000)));
  for (const edges of options.backlinkEdges ?? [10_000, 100_000])
    lines.push(backlinkLatency(edges, options.queries ?? 2000));
  if ((options.backlinkEdges ?? [1]).length > 0) lines.push(memoryPer100kEdges());
  lines.push(...(await federationIncremental(options.federationSize ?? 1000)));
  if ((options.quicFederationSize ?? 1000) > 0)
    lines.push(...(await federationOverQuic(options.quicFederationSize ?? 1000)));
  return lines;
}

// ---------------------------------------------------------------- generated worlds

const sectionSize = 100;
const docPath = (i: number) => `/s${Math.floor(i / sectionSize)}/doc-${i}.md`;

/** A document of about 1.5 KB: headings, prose, three links to other documents and sometimes a typed edge. */
function documentBody(i: number, count: number): string {
  const prose = `Notes on topic ${i % 97}, written for the benchmark. `.repeat(8);
  const link = (n: number) => `[doc ${n}](${relative(i, n)})`;
  return `# Document ${i}\n\n${prose}\n\n## Related\n\nSee ${link((i * 7 + 1) % count)} and ${link((i * 13 + 5) % count)}.\n\n## History\n\n${prose}\n\nEarlier: ${link((i + count - 1) % count)}.\n`;
}

function relative(from: number, to: number): string {
  const same = Math.floor(from / sectionSize) === Math.floor(to / sectionSize);
  return same ? `doc-${to}.md` : `../s${Math.floor(to / sectionSize)}/doc-${to}.md`;
}

/**
 * Lays out the world in the Go store layout directly (no fsync): hub index →
 * section indexes → documents, modified one minute apart over the past days
 * (a world whose documents were all written in the same second is not what a
 * crawl meets, and would hide the catalog's change detection).
 */
async function generateWorld(root: string, count: number): Promise<void> {
  const sections = Math.ceil(count / sectionSize);
  const newest = Date.now() - 10 * 60_000;
  let written = 0;
  const write = (path: string, body: string, metadata: Record<string, string> = {}) =>
    layFirstVersion(root, {
      path,
      body,
      metadata,
      modified: new Date(newest - (count + sections - written++) * 60_000),
    });
  await write(
    '/index.md',
    `# Hub\n\n${Array.from({ length: sections }, (_, s) => `- [Section ${s}](s${s}/index.md)\n`).join('')}`,
  );
  for (let s = 0; s < sections; s++) {
    const docs = Array.from({ length: Math.min(sectionSize, count - s * sectionSize) }, (_, k) => s * sectionSize + k);
    await write(`/s${s}/index.md`, `# Section ${s}\n\n${docs.map((i) => `- [Document ${i}](doc-${i}.md)\n`).join('')}`);
    await Promise.all(
      docs.map((i) =>
        write(
          docPath(i),
          documentBody(i, count),
          i % 10 === 0 ? { 'rel-supersedes': relative(i, (i + 1) % count) } : {},
        ),
      ),
    );
  }
}

/** The WorldGateway over real QUIC: one pooled client, each world on its own listener. */
class QuicGateway implements WorldGateway {
  readonly #client: MarkClient;
  readonly #worlds = new Map<string, { authority: { host: string; port: number; dialHost: string }; token: string }>();
  readonly #infos: WorldInfo[] = [];
  constructor(client: MarkClient) {
    this.#client = client;
  }
  add(name: string, port: number, token: string): void {
    this.#worlds.set(name, { authority: { host: 'localhost', port, dialHost: '127.0.0.1' }, token });
    this.#infos.push({ name, address: `localhost:${port}`, source: 'config' });
  }
  list = () => this.#infos;
  get = (name: string) => this.#infos.find((w) => w.name === name);
  canWrite = () => true;
  read = (world: string, call: MarkCall) => this.#client.call(this.#worlds.get(world)!.authority, call);
  write = (world: string, _identity: Identity, call: MarkCall) =>
    this.#client.call(this.#worlds.get(world)!.authority, {
      ...call,
      metadata: { ...call.metadata, auth: this.#worlds.get(world)!.token },
    });
  close = async () => {};
}

/** The WorldGateway over in-process world handlers: the same request bytes, no QUIC. */
class InProcessGateway implements WorldGateway {
  readonly #worlds = new Map<string, { world: World; token: string }>();
  readonly #infos: WorldInfo[] = [];
  add(name: string, world: World, token: string): void {
    this.#worlds.set(name, { world, token });
    this.#infos.push({ name, address: `${name}.bench.svc.cluster.local:6309`, source: 'config' });
  }
  list = () => this.#infos;
  get = (name: string) => this.#infos.find((w) => w.name === name);
  canWrite = () => true;
  read = (world: string, call: MarkCall) => this.#send(world, call, {});
  write = (world: string, _identity: Identity, call: MarkCall) =>
    this.#send(world, call, { auth: this.#worlds.get(world)!.token });
  close = async () => {};
  #send(world: string, call: MarkCall, extra: Record<string, string>): Promise<MarkResponse> {
    const entry = this.#worlds.get(world)!;
    const body = typeof call.body === 'string' ? Buffer.from(call.body) : (call.body ?? new Uint8Array(0));
    return entry.world.respond({
      bytes: encodeRequest({ verb: call.verb, path: call.path, metadata: { ...call.metadata, ...extra }, body }),
    });
  }
}

async function withWorld<T>(
  count: number,
  work: (root: string, tokensFile: string, token: string) => Promise<T>,
): Promise<T> {
  return withTokenDirectory('bench-graph-', async (dir, tokensFile, token) => {
    await generateWorld(join(dir, 'root'), count);
    return work(join(dir, 'root'), tokensFile, token);
  });
}

/** A scratch world directory whose tokens.toml lets one fresh token publish everywhere, removed after `work`. */
async function withTokenDirectory<T>(
  prefix: string,
  work: (dir: string, tokensFile: string, token: string) => Promise<T>,
): Promise<T> {
  const dir = await makeScratchDirectory(prefix, scratchRoot());
  try {
    const token = generateToken();
    const tokensFile = join(dir, 'tokens.toml');
    await writeFile(
      tokensFile,
      `[tokens.bench]\nhash = "${hashToken(token)}"\npaths = ["/**"]\noperations = ["publish"]\n`,
    );
    return await work(dir, tokensFile, token);
  } finally {
    await removeScratchDirectory(dir);
  }
}

/** Generated worlds live in memory-backed /dev/shm when there is one: this measures the crawl, not the disk. */
function scratchRoot(): string {
  return existsSync('/dev/shm') ? '/dev/shm' : tmpdir();
}

// ---------------------------------------------------------------- crawl throughput

const crawlLimits = (count: number) => ({ maxDepth: 5, maxNodes: count + 1000, workers: 8 });

async function crawlThroughput(count: number): Promise<string[]> {
  return withWorld(count, async (root, tokensFile, token) => {
    const world = await openWorld({ root, tokensFile, bodySearch: false });
    try {
      const gateway = new InProcessGateway();
      gateway.add('bench', world, token);
      const fetcher = (w: string, path: string) => gateway.read(w, { verb: 'FETCH', path });
      const directory = new WorldDirectory(gateway.list());
      await crawl('mark://bench/index.md', fetcher, directory, crawlLimits(count)); // warm-up
      let started = performance.now();
      const result = await crawl('mark://bench/index.md', fetcher, directory, crawlLimits(count));
      const crawlMs = performance.now() - started;
      const paths = [...result.graph.nodes.keys()].map((url) => url.slice('mark://bench'.length));
      started = performance.now();
      await runPool([...paths], async (path) => void (await fetcher('bench', path)), { workers: 8 });
      const fetchMs = performance.now() - started;
      const nodes = result.graph.nodes.size;
      return [
        `crawl, ${count}-document world, in-process handler: ${nodes} nodes, ${result.graph.edgeCount} edges in ${crawlMs.toFixed(0)} ms = ${(nodes / (crawlMs / 1000)).toFixed(0)} docs/s; ` +
          `baseline FETCH only ${(nodes / (fetchMs / 1000)).toFixed(0)} docs/s (crawl/baseline time x${(crawlMs / fetchMs).toFixed(2)})`,
      ];
    } finally {
      await world.close();
    }
  });
}

/**
 * The same crawl over real QUIC twice: with the world server in this process (client and
 * server share one core's event loop) and with the world in its own
 * `demarkus-broker world` process, as a broker meets it; beside it, the baseline the
 * issue compares them with (issue 16: "crawl of a 1,000-document world over QUIC vs
 * in-process"): the same crawl of the same world through its in-process handler. Each is
 * warmed up by one crawl first (a new process runs cold), then measured in alternated
 * rounds, and each QUIC figure is printed as a ratio to the in-process one.
 */
export async function quicCrawlThroughput(count: number, rounds = 3): Promise<string[]> {
  return withWorld(count, async (root, tokensFile) => {
    const tls = await generateDevCertificate();
    const dir = await makeScratchDirectory('bench-graph-tls-', scratchRoot());
    await writeFile(join(dir, 'cert.pem'), tls.cert);
    await writeFile(join(dir, 'key.pem'), tls.key);
    const server = await startWorldServer({
      root,
      tokensFile,
      listen: { host: '127.0.0.1', port: 0 },
      tls,
      rateLimit: { perSecond: 0, burst: 1 },
      bodySearch: false,
    });
    let ownProcess: WorldProcess | undefined;
    try {
      ownProcess = await startWorldProcess(
        [
          ...['--root', root, '--tokens', tokensFile, '--listen', '127.0.0.1:0', '--rate-limit', '0'],
          ...['--tls-cert', join(dir, 'cert.pem'), '--tls-key', join(dir, 'key.pem'), '--name', 'bench'],
        ],
        // A bench has no test timeout: the 30 s start deadline it always had.
        { signal: AbortSignal.timeout(30_000), onSpawn: stopOnExit },
      );
      const ownPort = ownProcess.port;
      const places = [
        { label: 'in-process handler (baseline)', crawlOnce: () => crawlInProcess(server.world, count) },
        {
          label: 'over QUIC, world in this process',
          crawlOnce: () => crawlOverQuic(server.port, tls.cert, count),
        },
        { label: 'over QUIC, world in its own process', crawlOnce: () => crawlOverQuic(ownPort, tls.cert, count) },
      ].map((place) => ({ ...place, cold: 0, docsPerSecond: [] as number[] }));
      for (let round = -1; round < rounds; round++)
        for (const place of places) {
          const docsPerSecond = await place.crawlOnce();
          if (round >= 0) place.docsPerSecond.push(docsPerSecond);
          else place.cold = docsPerSecond;
        }
      const baseline = median(places[0]!.docsPerSecond);
      return places.map((place, i) => {
        const sorted = [...place.docsPerSecond].sort((a, b) => a - b);
        const vsBaseline = i === 0 ? '' : `, x${(median(sorted) / baseline).toFixed(3)} of the in-process crawl`;
        return `crawl, ${count}-document world, ${place.label} (8 workers${i === 0 ? '' : ', one pooled connection'}): median ${median(sorted).toFixed(0)} docs/s of ${rounds} crawls (${sorted.map((d) => d.toFixed(0)).join(', ')})${vsBaseline}; the first crawl after start ${place.cold.toFixed(0)} docs/s`;
      });
    } finally {
      if (ownProcess !== undefined) {
        ownProcess.child.kill('SIGTERM');
        await ownProcess.exited;
      }
      await server.close();
      await removeScratchDirectory(dir);
    }
  });
}

/** One crawl of `world` through its handler, no QUIC; documents per second. */
async function crawlInProcess(world: World, count: number): Promise<number> {
  const gateway = new InProcessGateway();
  gateway.add('bench', world, '');
  const fetcher = (w: string, path: string) => gateway.read(w, { verb: 'FETCH', path });
  const directory = new WorldDirectory(gateway.list());
  const started = performance.now();
  const result = await crawl('mark://bench/index.md', fetcher, directory, crawlLimits(count));
  return result.graph.nodes.size / ((performance.now() - started) / 1000);
}

/** One crawl of the world at `port` through a fresh client; documents per second. */
async function crawlOverQuic(port: number, ca: string, count: number): Promise<number> {
  const client = new MarkClient({ ca });
  try {
    const authority = { host: 'localhost', port, dialHost: '127.0.0.1' };
    const fetcher = (_w: string, path: string) => client.call(authority, { verb: 'FETCH', path });
    const directory = new WorldDirectory([{ name: 'bench', address: `localhost:${port}`, source: 'config' }]);
    await fetcher('bench', '/index.md');
    const started = performance.now();
    const result = await crawl('mark://bench/index.md', fetcher, directory, crawlLimits(count));
    return result.graph.nodes.size / ((performance.now() - started) / 1000);
  } finally {
    await client.close();
  }
}

// ---------------------------------------------------------------- backlinks and memory

/**
 * `count` edges as the crawler produces them: count/10 source documents of
 * two sections with five labeled links each, parsed by the same link
 * extraction, over count/10 targets, one link in 17 also a typed edge.
 */
function generatedEdges(count: number): GraphEdge[] {
  const docs = Math.max(1, Math.floor(count / 10));
  const directory = new WorldDirectory([]);
  const url = (i: number) => `mark://team-${i % 7}/docs/area-${i % 31}/document-${i}.md`;
  const edges: GraphEdge[] = [];
  for (let d = 0; d < docs; d++) {
    const links = Array.from({ length: 10 }, (_, k) => {
      const i = d * 10 + k;
      return `${k === 5 ? '\n## Background\n\n' : ''}- [Link ${i % 1000}](${url((i * 7919 + 13) % docs)})\n`;
    });
    const parsed = documentLinks(
      url(d),
      `# Document ${d}\n\n## Related\n\n${links.join('')}`,
      d % 2 === 0 ? { 'rel-supersedes': url((d + 1) % docs) } : {},
      directory,
    );
    edges.push(...parsed.edges);
  }
  return edges;
}

/** A store holding `edges`, filled the way crawls fill it (merge of a crawled graph). */
function storeOf(edges: readonly GraphEdge[]): GraphStore {
  const graph = new CrawledGraph();
  for (const edge of edges) {
    graph.addNode({ url: edge.from, title: 'Document', status: 'ok', linkCount: 10 });
    graph.addEdge(edge);
  }
  const store = new GraphStore();
  store.merge(graph);
  return store;
}

function backlinkLatency(count: number, queries: number): string {
  const edges = generatedEdges(count);
  const store = storeOf(edges);
  const targets = Array.from({ length: queries }, (_, q) => edges[(q * 104_729) % edges.length]!.to);
  const linear = (url: string) =>
    edges
      .filter((e) => e.to === url)
      .map((e) => ({ url: e.from, rel: e.rel }))
      .sort((a, b) => compareUtf8(a.url, b.url) || compareUtf8(a.rel, b.rel));
  const time = (query: (url: string) => unknown[]) => {
    const samples: number[] = [];
    let rows = 0;
    for (const target of targets) {
      const started = performance.now();
      rows += query(target).length;
      samples.push(performance.now() - started);
    }
    samples.sort((a, b) => a - b);
    return { p50: percentile(samples, 0.5), p99: percentile(samples, 0.99), rows };
  };
  time((url) => store.backlinks(url));
  const indexed = time((url) => store.backlinks(url));
  const scan = time(linear);
  const same = indexed.rows === scan.rows ? '' : ' (ANSWERS DIFFER)';
  return `backlinks at ${count} edges, ${queries} queries: indexed p50 ${(indexed.p50 * 1000).toFixed(1)} µs p99 ${(indexed.p99 * 1000).toFixed(1)} µs; linear scan p50 ${(scan.p50 * 1000).toFixed(1)} µs p99 ${(scan.p99 * 1000).toFixed(1)} µs; p50 ratio ${(scan.p50 / indexed.p50).toFixed(0)}x${same}`;
}

function collectGarbage(): () => void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  return () => {
    gc();
    gc();
  };
}

function memoryPer100kEdges(): string {
  const gc = collectGarbage();
  storeOf(generatedEdges(100_000)); // warm-up: compiled code and caches are not the store's
  gc();
  const before = process.memoryUsage().heapUsed;
  const store = storeOf(generatedEdges(100_000));
  gc();
  const after = process.memoryUsage().heapUsed;
  const bytes = after - before;
  return `memory: ${store.edgeCount} edges from ${store.nodeCount} parsed documents (URLs ~45 chars, labels, anchors) hold ${(bytes / 1024 / 1024).toFixed(1)} MiB of heap = ${(bytes / store.edgeCount).toFixed(0)} bytes per edge, nodes and strings included`;
}

// ---------------------------------------------------------------- federation

type CrawlRun = { ms: number; summary: Awaited<ReturnType<typeof runFederationCrawl>> };

/** First crawl, then two unchanged ones: previous read back from the hub, and handed over in memory. */
async function threeCrawls(gateway: WorldGateway): Promise<[CrawlRun, CrawlRun, CrawlRun]> {
  const run = async (previous?: CrawlRun['summary']['state']): Promise<CrawlRun> => {
    const started = performance.now();
    const summary = await runFederationCrawl({
      gateway,
      hub: 'root',
      now: () => new Date(),
      ...(previous ? { previous } : {}),
    });
    return { ms: performance.now() - started, summary };
  };
  const first = await run();
  const unchanged = await run();
  return [first, unchanged, await run(unchanged.summary.state)];
}

function describeCrawls(title: string, [first, unchanged, inMemory]: [CrawlRun, CrawlRun, CrawlRun]): string[] {
  const describe = (label: string, r: CrawlRun) =>
    `  ${label}: ${r.ms.toFixed(0)} ms, fetched ${r.summary.documentsFetched}, skipped ${r.summary.documentsSkipped} (${r.summary.worlds.reduce((n, w) => n + w.skippedByCatalog, 0)} without a request), published ${r.summary.published.filter((p) => p.outcome === 'published').length}/${r.summary.published.length}`;
  return [
    `${title} (graph ${first.summary.nodes} nodes, ${first.summary.edges} edges)`,
    describe('first crawl (empty hub)', first),
    describe('unchanged, previous read back from the hub', unchanged),
    describe('unchanged, previous state in memory', inMemory),
    `  unchanged/first time: x${(unchanged.ms / first.ms).toFixed(3)} (hub state) and x${(inMemory.ms / first.ms).toFixed(3)} (in memory)`,
  ];
}

async function federationOverQuic(count: number): Promise<string[]> {
  return withTokenDirectory('bench-hub-', (hubDir, hubTokensFile, hubToken) =>
    withWorld(count, async (root, tokensFile, token) => {
      const tls = await generateDevCertificate();
      const listen = { host: '127.0.0.1', port: 0 };
      const hub = await startWorldServer({
        root: join(hubDir, 'root'),
        tokensFile: hubTokensFile,
        listen,
        tls,
        rateLimit: { perSecond: 0, burst: 1 },
        bodySearch: false,
      });
      const world = await startWorldServer({
        root,
        tokensFile,
        listen,
        tls,
        rateLimit: { perSecond: 0, burst: 1 },
        bodySearch: false,
      });
      const client = new MarkClient({ ca: tls.cert });
      try {
        const gateway = new QuicGateway(client);
        gateway.add('root', hub.port, hubToken);
        gateway.add('team-a', world.port, token);
        return describeCrawls(`federation crawl, hub + ${count}-document world, over QUIC`, await threeCrawls(gateway));
      } finally {
        await client.close();
        await world.close();
        await hub.close();
      }
    }),
  );
}

async function federationIncremental(count: number): Promise<string[]> {
  return withTokenDirectory('bench-hub-', async (hubDir, hubTokensFile, hubToken) => {
    const hub = await openWorld({ root: join(hubDir, 'root'), tokensFile: hubTokensFile, bodySearch: false });
    try {
      return await withWorld(count, async (root, tokensFile, token) => {
        const world = await openWorld({ root, tokensFile, bodySearch: false });
        try {
          const gateway = new InProcessGateway();
          gateway.add('root', hub, hubToken);
          gateway.add('team-a', world, token);
          return describeCrawls(
            `federation crawl, hub + ${count}-document world, in-process handler`,
            await threeCrawls(gateway),
          );
        } finally {
          await world.close();
        }
      });
    } finally {
      await hub.close();
    }
  });
}

if (import.meta.main) {
  const quick = process.argv.includes('--quick');
  const lines = await runGraphBenchmark(
    quick
      ? {
          crawlSizes: [1000],
          quicCrawlSize: 300,
          backlinkEdges: [10_000],
          federationSize: 300,
          quicFederationSize: 300,
          queries: 500,
        }
      : {},
  );
  console.log(lines.join('\n'));
}
