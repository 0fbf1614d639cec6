/**
 * LIST of one large folder over real QUIC: the first page and the page after
 * its cursor, per folder size (docs/benchmarks.md, "LIST of large folders").
 * Documents are laid out directly in the Go layout (one version, no
 * archive-state, as a publish leaves them).
 *
 *   node bench/world-list.ts [sizes=1000,5000,20000] [rounds=5] [--tree <checkout>]
 *
 * `--tree` serves the world from another checkout (a baseline); the client and
 * the layout always come from this one.
 */
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { layFirstVersions } from './lib/lay-store.ts';
import { median } from './lib/measure.ts';
import { makeScratchDirectory, removeScratchDirectory } from './lib/scratch.ts';
import { MarkClient } from '../src/transport/mark-client.ts';
import { generateDevCertificate } from '../src/transport/tls.ts';
import type { startWorldServer as StartWorldServer } from '../src/world/world-server.ts';

/** A folder of `count` notes, each as its first PUBLISH leaves it. */
async function layFolder(root: string, folder: string, count: number): Promise<void> {
  const text = `\n${'Some text. '.repeat(200)}\n`;
  await layFirstVersions(root, count, (i) => ({
    path: `${folder}/note-${i}.md`,
    body: `# note-${i}.md\n${text}`,
    metadata: { tags: 'bench' },
  }));
}

async function main(sizes: number[], rounds: number, tree: string): Promise<void> {
  const serverModule = pathToFileURL(join(tree, 'src/world/world-server.ts')).href;
  const { startWorldServer } = (await import(serverModule)) as { startWorldServer: typeof StartWorldServer };
  const tls = await generateDevCertificate();
  console.log(`world from ${tree}; ${rounds} rounds per size; medians (min) in ms`);
  for (const size of sizes) {
    const dir = await makeScratchDirectory('bench-list-');
    await layFolder(join(dir, 'root'), '/big', size);
    const server = await startWorldServer({
      root: join(dir, 'root'),
      listen: { host: '127.0.0.1', port: 0 },
      tls,
      rateLimit: { perSecond: 0, burst: 1 },
    });
    const client = new MarkClient({ ca: tls.cert, requestTimeoutMs: 60_000 });
    const authority = { host: 'localhost', port: server.port, dialHost: '127.0.0.1' };
    const list = (metadata: Record<string, string>) =>
      client.call(authority, { verb: 'LIST', path: '/big', metadata, timeoutMs: 60_000 });
    try {
      const first = await list({});
      const cursor = first.metadata['next-cursor'];
      const times: { first: number[]; next: number[] } = { first: [], next: [] };
      for (let round = 0; round < rounds; round++) {
        let begun = performance.now();
        await list({});
        times.first.push(performance.now() - begun);
        if (cursor === undefined) continue;
        begun = performance.now();
        await list({ cursor });
        times.next.push(performance.now() - begun);
      }
      const shown = (xs: number[]) => `${median(xs).toFixed(0)} (${Math.min(...xs).toFixed(0)})`;
      console.log(
        `${String(size).padStart(6)} entries: first page ${shown(times.first)}` +
          (cursor === undefined ? '' : `, next page ${shown(times.next)}`) +
          `   [${first.status}, entries ${first.metadata.entries}, complete ${first.metadata.complete}]` +
          `   load ${loadavg()[0]?.toFixed(1)}`,
      );
    } catch (error) {
      console.log(`${String(size).padStart(6)} entries: failed (${error instanceof Error ? error.message : error})`);
    } finally {
      await client.close();
      await server.close();
      await removeScratchDirectory(dir);
    }
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2);
  const treeAt = args.indexOf('--tree');
  const tree = treeAt === -1 ? fileURLToPath(new URL('..', import.meta.url)) : resolve(args[treeAt + 1] ?? '.');
  const rest = treeAt === -1 ? args : args.filter((_, i) => i !== treeAt && i !== treeAt + 1);
  const sizes = (rest[0] ?? '1000,5000,20000').split(',').map(Number);
  await main(sizes, Number(rest[1] ?? 5), tree);
}
