/**
 * FETCH through MarkClient at C concurrent requests on one authority (one
 * pooled connection, 8 streams, the world granting 10), the path where the
 * client waits for the peer's stream credit. With `--against <tree>` the same
 * load runs through another checkout's client and world server (its own
 * node_modules), alternated round by round with this checkout's, and prints the
 * ratio; without it, only this checkout.
 * Run: `node bench/concurrent-fetch.ts [--against <tree>] [concurrency] [requestsPerRound] [rounds]`
 * (default 16 × 1000 × 6).
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { percentile } from './lib/measure.ts';

type Tree = { label: string; fetchOnce(): Promise<void>; latencies: number[]; seconds: number; close(): Promise<void> };

async function openTree(label: string, root: string): Promise<Tree> {
  const { startBenchWorld } = (await import(
    pathToFileURL(resolve(root, 'bench/lib/bench-world.ts')).href
  )) as typeof import('./lib/bench-world.ts');
  const world = await startBenchWorld('concurrent');
  const body = `# Small document\n\n${'A line of text about the broker.\n'.repeat(10)}`;
  await world.server.world.context.store.publish('/doc.md', Buffer.from(body), { tags: 'bench' }, {});
  return {
    label,
    latencies: [],
    seconds: 0,
    async fetchOnce() {
      const response = await world.client.call(world.authority, { verb: 'FETCH', path: '/doc.md' });
      if (response.status !== 'ok') throw new Error(`FETCH answered ${response.status}`);
    },
    close: () => world.close(),
  };
}

async function round(tree: Tree, concurrency: number, requests: number, record: boolean): Promise<void> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < requests) {
        next += 1;
        const begun = performance.now();
        await tree.fetchOnce();
        if (record) tree.latencies.push(performance.now() - begun);
      }
    }),
  );
  if (record) tree.seconds += (performance.now() - started) / 1000;
}

export async function runConcurrentFetchBench(
  options: { against?: string; concurrency?: number; requests?: number; rounds?: number } = {},
): Promise<string[]> {
  const { concurrency = 16, requests = 1000, rounds = 6 } = options;
  const trees = [await openTree('this checkout', fileURLToPath(new URL('..', import.meta.url)))];
  if (options.against !== undefined) trees.unshift(await openTree(`baseline ${options.against}`, options.against));
  try {
    for (const tree of trees) await round(tree, concurrency, 200, false);
    for (let r = 0; r < rounds; r++)
      for (const tree of r % 2 === 0 ? trees : [...trees].reverse()) await round(tree, concurrency, requests, true);
    const lines = [
      `FETCH at ${concurrency} concurrent requests, one authority, ${rounds} alternated rounds of ${requests}`,
    ];
    for (const tree of trees) {
      const sorted = [...tree.latencies].sort((a, b) => a - b);
      const perSecond = tree.latencies.length / tree.seconds;
      lines.push(
        `${tree.label.padEnd(40)} ${perSecond.toFixed(0).padStart(6)}/s   p50 ${percentile(sorted, 0.5).toFixed(3)} ms   p99 ${percentile(sorted, 0.99).toFixed(3)} ms`,
      );
    }
    if (trees.length === 2) {
      const [base, cand] = trees as [Tree, Tree];
      lines.push(
        `ratio calls/s this / baseline: ${(cand.latencies.length / cand.seconds / (base.latencies.length / base.seconds)).toFixed(3)}`,
      );
    }
    return lines;
  } finally {
    for (const tree of trees) await tree.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--against');
  const against = at >= 0 ? args[at + 1] : undefined;
  const [concurrency, requests, rounds] = args.filter((_, i) => at < 0 || (i !== at && i !== at + 1)).map(Number);
  console.log((await runConcurrentFetchBench({ against, concurrency, requests, rounds })).join('\n'));
}
