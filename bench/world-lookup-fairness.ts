/**
 * Body LOOKUP fairness: one client runs heavy `match: body` LOOKUPs back to back
 * while another client's sequential FETCHes are timed, against the same FETCHes
 * with no LOOKUP running, in the same run. The world serves the 5,000 documents
 * (50,000 sections) of bench/search-latency.ts's generated corpus, in its own
 * process, over real QUIC on loopback; both clients live in this process.
 *
 * The LOOKUPs rotate over the heavy kinds docs/benchmarks.md timed in
 * "2026-12-07 (eighth session) LIST of large folders": relaxed with 32 frequent
 * words and limit 1000, `corpus-stats: only` over 32 words, and a miss with
 * `nearest-titles: 10`. Rounds alternate an idle and a loaded phase; each
 * FETCH figure (and the loaded/idle ratio) is the median over rounds, so a
 * load swing on the machine moves both sides of a ratio alike; each LOOKUP
 * line pools the samples of every round's loaded phase instead.
 *
 *   node bench/world-lookup-fairness.ts [documents=5000] [rounds=3] [seconds per phase=4] [--tree <checkout>]
 *
 * `--tree` also serves the same store from another checkout (a baseline), in
 * its own process, alternated phase by phase with this one.
 */
import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { layFirstVersions, type LaidDocument } from './lib/lay-store.ts';
import { median, percentile } from './lib/measure.ts';
import { makeScratchDirectory, removeScratchDirectory, stopOnExit } from './lib/scratch.ts';
import { generateCorpus, sectionsPerDoc } from './search-latency.ts';
import { wordRuns, type SearchDoc } from '../src/search/index.ts';
import { MarkClient } from '../src/transport/mark-client.ts';
import { generateDevCertificate } from '../src/transport/tls.ts';
import type { startWorldServer as StartWorldServer } from '../src/world/world-server.ts';

const fetchPath = '/team-0/doc-0.md';

/** The generated document as its first PUBLISH stores it: description and tags as metadata. */
function asLaidDocument(doc: SearchDoc): LaidDocument {
  const metadata: Record<string, string> = {};
  if (doc.description) metadata.description = doc.description;
  if (doc.tags.length > 0) metadata.tags = doc.tags.join(', ');
  return { path: doc.id, body: doc.body, metadata };
}

/** The corpus's most frequent body words, most frequent first. */
function frequentWords(docs: readonly SearchDoc[], count: number): string[] {
  const seen = new Map<string, number>();
  for (const doc of docs) for (const word of wordRuns(doc.body)) seen.set(word, (seen.get(word) ?? 0) + 1);
  return [...seen.entries()]
    .filter(([word]) => word.length > 3)
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([word]) => word);
}

interface ServedWorld {
  tree: string;
  port: number;
  stop(): Promise<void>;
}

/** Child mode: serve `root` with `tree`'s world server and print its port. */
async function serve(tree: string, root: string, certFile: string, keyFile: string): Promise<void> {
  const { readFile } = await import('node:fs/promises');
  const module = pathToFileURL(join(tree, 'src/world/world-server.ts')).href;
  const { startWorldServer } = (await import(module)) as { startWorldServer: typeof StartWorldServer };
  const server = await startWorldServer({
    root,
    listen: { host: '127.0.0.1', port: 0 },
    tls: { cert: await readFile(certFile, 'utf8'), key: await readFile(keyFile, 'utf8') },
    rateLimit: { perSecond: 0, burst: 1 },
  });
  process.stdout.write(`${JSON.stringify({ port: server.port })}\n`);
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}

function startServed(tree: string, root: string, certFile: string, keyFile: string): Promise<ServedWorld> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--serve', tree, root, certFile, keyFile], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  stopOnExit(child);
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  return new Promise((resolvePort, reject) => {
    child.once('exit', (code) => reject(new Error(`world from ${tree} exited (${code}) before listening`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      const { port } = JSON.parse(line) as { port: number };
      resolvePort({
        tree,
        port,
        stop: async () => {
          child.kill('SIGTERM');
          await exited;
        },
      });
    });
  });
}

interface Phase {
  fetchMs: number[];
  lookupMs: Map<string, number[]>;
}

async function runPhase(
  world: ServedWorld,
  fetcher: MarkClient,
  searcher: MarkClient | null,
  lookups: readonly { name: string; metadata: Record<string, string> }[],
  seconds: number,
): Promise<Phase> {
  const authority = { host: 'localhost', port: world.port, dialHost: '127.0.0.1' };
  const phase: Phase = { fetchMs: [], lookupMs: new Map(lookups.map((l) => [l.name, []])) };
  let running = true;
  const load = (async () => {
    if (searcher === null) return;
    for (let i = 0; running; i++) {
      const lookup = lookups[i % lookups.length]!;
      const begun = performance.now();
      const response = await searcher.call(authority, { verb: 'LOOKUP', path: '/', metadata: lookup.metadata });
      if (response.status !== 'ok') throw new Error(`LOOKUP ${lookup.name} answered ${response.status}`);
      phase.lookupMs.get(lookup.name)!.push(performance.now() - begun);
    }
  })();
  const end = performance.now() + seconds * 1000;
  while (performance.now() < end) {
    const begun = performance.now();
    const response = await fetcher.call(authority, { verb: 'FETCH', path: fetchPath });
    if (response.status !== 'ok') throw new Error(`FETCH answered ${response.status}`);
    phase.fetchMs.push(performance.now() - begun);
  }
  running = false;
  await load;
  return phase;
}

const p = (xs: readonly number[], q: number): number =>
  percentile(
    [...xs].sort((a, b) => a - b),
    q,
  );

async function main(documents: number, rounds: number, seconds: number, baseline: string | null): Promise<void> {
  const dir = await makeScratchDirectory('bench-lookup-fairness-');
  const worlds: ServedWorld[] = [];
  const clients: MarkClient[] = [];
  try {
    const docs = generateCorpus(documents * sectionsPerDoc);
    await layFirstVersions(join(dir, 'root'), docs.length, (index) => asLaidDocument(docs[index]!));
    const words = frequentWords(docs, 32);
    const lookups: { name: string; metadata: Record<string, string> }[] = [
      {
        name: 'relaxed, 32 frequent words, limit 1000',
        metadata: { query: words.join(' '), match: 'body', 'match-terms': 'any', limit: '1000' },
      },
      {
        name: 'corpus-stats: only, 32 frequent words',
        metadata: { query: words.join(' '), match: 'body', 'match-terms': 'any', 'corpus-stats': 'only' },
      },
      {
        name: 'miss, nearest-titles: 10',
        metadata: { query: 'qzxv kyeboard vwqz', match: 'body', 'nearest-titles': '10' },
      },
    ];
    const tls = await generateDevCertificate();
    const certFile = join(dir, 'cert.pem');
    const keyFile = join(dir, 'key.pem');
    await writeFile(certFile, tls.cert);
    await writeFile(keyFile, tls.key);
    const trees = [fileURLToPath(new URL('..', import.meta.url)), ...(baseline === null ? [] : [resolve(baseline)])];
    // One at a time: each builds its index of the whole store at start.
    for (const tree of trees) worlds.push(await startServed(tree, join(dir, 'root'), certFile, keyFile));
    const fetcher = new MarkClient({ ca: tls.cert, requestTimeoutMs: 60_000 });
    const searcher = new MarkClient({ ca: tls.cert, requestTimeoutMs: 60_000 });
    clients.push(fetcher, searcher);
    const results = new Map(worlds.map((w) => [w.tree, { idle: [] as Phase[], loaded: [] as Phase[] }]));
    // Warm-up: connections, the FETCH cache, each LOOKUP once.
    for (const world of worlds) await runPhase(world, fetcher, searcher, lookups, 1);
    const loads: number[] = [];
    for (let round = 0; round < rounds; round++) {
      // Alternate which tree goes first in a round.
      const order = round % 2 === 0 ? worlds : [...worlds].reverse();
      for (const world of order) {
        const result = results.get(world.tree)!;
        result.idle.push(await runPhase(world, fetcher, null, lookups, seconds));
        result.loaded.push(await runPhase(world, fetcher, searcher, lookups, seconds));
        loads.push(loadavg()[0] ?? 0);
      }
    }
    console.log(
      `${documents} documents (${documents * sectionsPerDoc} sections), ${rounds} rounds x ${seconds} s per phase; FETCH medians over rounds, LOOKUP samples pooled; load ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`,
    );
    for (const world of worlds) {
      const { idle, loaded } = results.get(world.tree)!;
      const figure = (phases: Phase[], q: number) => median(phases.map((ph) => p(ph.fetchMs, q)));
      const ratioOf = (q: number) => median(idle.map((ph, i) => p(loaded[i]!.fetchMs, q) / p(ph.fetchMs, q)));
      console.log(`\nworld from ${world.tree}`);
      console.log(
        `  FETCH idle    p50 ${figure(idle, 0.5).toFixed(2)} ms  p99 ${figure(idle, 0.99).toFixed(2)} ms  (${median(idle.map((ph) => ph.fetchMs.length))} per phase)`,
      );
      console.log(
        `  FETCH loaded  p50 ${figure(loaded, 0.5).toFixed(2)} ms  p99 ${figure(loaded, 0.99).toFixed(2)} ms  (${median(loaded.map((ph) => ph.fetchMs.length))} per phase)`,
      );
      console.log(`  loaded/idle   p50 x${ratioOf(0.5).toFixed(1)}  p99 x${ratioOf(0.99).toFixed(1)}`);
      for (const { name } of lookups) {
        const all = loaded.flatMap((ph) => ph.lookupMs.get(name) ?? []);
        console.log(
          `  LOOKUP ${name.padEnd(40)} p50 ${p(all, 0.5).toFixed(0)} ms  max ${p(all, 1).toFixed(0)} ms  (${all.length})`,
        );
      }
    }
  } finally {
    for (const client of clients) await client.close();
    for (const world of worlds) await world.stop();
    await removeScratchDirectory(dir);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  if (args[0] === '--serve') {
    await serve(args[1]!, args[2]!, args[3]!, args[4]!);
  } else {
    const treeAt = args.indexOf('--tree');
    const baseline = treeAt >= 0 ? (args[treeAt + 1] ?? null) : null;
    const positional = treeAt >= 0 ? args.filter((_, i) => i !== treeAt && i !== treeAt + 1) : args;
    await main(Number(positional[0] ?? 5000), Number(positional[1] ?? 3), Number(positional[2] ?? 4), baseline);
  }
}
