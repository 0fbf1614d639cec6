/**
 * World store benchmarks, each beside a baseline from the same run:
 *  - PUBLISH throughput on one world (in-process handler and over QUIC) against
 *    the floor cost of a durable write (write + fsync of the same bytes);
 *  - start-up: opening a store of N documents and building the catalog, hash
 *    index and body index, against a plain walk that reads every version file.
 * Run: `node bench/world-store.ts [publishes] [startupSizes e.g. 10000,100000]`.
 */
import { fileURLToPath } from 'node:url';
import { mkdir, writeFile, open, readdir, readFile, lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { layFirstVersions } from './lib/lay-store.ts';
import { formatLatency, measureSequential, ratio } from './lib/measure.ts';
import { makeScratchDirectory, removeScratchDirectory } from './lib/scratch.ts';
import { openWorld } from '../src/world/world.ts';
import { startWorldServer } from '../src/world/world-server.ts';
import { generateDevCertificate } from '../src/transport/tls.ts';
import { MarkClient } from '../src/transport/mark-client.ts';
import { encodeRequest } from '../src/protocol/request.ts';
import { generateToken, hashToken } from '../src/protocol/token.ts';

const body = (i: number) =>
  `# Document ${i}\n\nThis note covers topic ${i % 97} and links to [another](doc-${(i * 7) % 1000}.md).\n\n## Details\n\nMore words about item ${i}.\n`;

export async function runPublishBench(count = 300): Promise<string[]> {
  const dir = await makeScratchDirectory('bench-publish-');
  const token = generateToken();
  await writeFile(
    join(dir, 'tokens.toml'),
    `[tokens.bench]\nhash = "${hashToken(token)}"\npaths = ["/**"]\noperations = ["publish"]\n`,
  );
  const tls = await generateDevCertificate();
  const server = await startWorldServer({
    root: join(dir, 'root'),
    tokensFile: join(dir, 'tokens.toml'),
    listen: { host: '127.0.0.1', port: 0 },
    tls,
    rateLimit: { perSecond: 0, burst: 1 },
  });
  const client = new MarkClient({ ca: tls.cert });
  const authority = { host: 'localhost', port: server.port, dialHost: '127.0.0.1' };
  try {
    await mkdir(join(dir, 'floor'));
    const floor = await measureSequential('baseline: write + fsync of the same bytes', count, async (i) => {
      const handle = await open(join(dir, 'floor', `f${i}`), 'w');
      await handle.writeFile(body(i));
      await handle.sync();
      await handle.close();
    });
    const local = await measureSequential('PUBLISH in-process (handler + store)', count, async (i) => {
      const bytes = encodeRequest({
        verb: 'PUBLISH',
        path: `/local/doc-${i}.md`,
        metadata: { auth: token, tags: 'bench' },
        body: Buffer.from(body(i)),
      });
      await server.world.handle({ bytes });
    });
    const quic = await measureSequential('PUBLISH over QUIC', count, async (i) => {
      const response = await client.call(authority, {
        verb: 'PUBLISH',
        path: `/quic/doc-${i}.md`,
        metadata: { auth: token, tags: 'bench' },
        body: body(i),
      });
      if (i >= 0 && response.status !== 'created') throw new Error(`PUBLISH answered ${response.status}`);
    });
    return [
      `PUBLISH throughput, ${count} new documents, one world`,
      formatLatency(floor),
      formatLatency(local),
      formatLatency(quic),
      `ratio in-process PUBLISH / durable-write floor (ops/s): ${ratio(local.perSecond, floor.perSecond)}`,
      `ratio QUIC PUBLISH / durable-write floor (ops/s): ${ratio(quic.perSecond, floor.perSecond)}`,
    ];
  } finally {
    await client.close();
    await server.close();
    await removeScratchDirectory(dir);
  }
}

/**
 * N documents, 500 to a folder, as their first PUBLISH leaves them (no fsync:
 * this measures opening, not writing).
 */
async function generateStore(root: string, count: number): Promise<void> {
  await layFirstVersions(root, count, (i) => ({
    path: `/section-${Math.floor(i / 500)}/doc-${i}.md`,
    body: body(i),
    metadata: { tags: `topic-${i % 97},bench`, importance: String((i % 10) / 10), type: 'Note' },
  }));
}

async function plainWalk(dir: string): Promise<number> {
  let files = 0;
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) files += await plainWalk(path);
    else if (entry.isFile()) {
      await readFile(path);
      files++;
    } else await lstat(path);
  }
  return files;
}

export async function runStartupBench(sizes = [10_000, 100_000]): Promise<string[]> {
  const lines = ['World start-up: open the store, build catalog + hash index + body index'];
  for (const size of sizes) {
    const dir = await makeScratchDirectory('bench-startup-');
    try {
      await generateStore(join(dir, 'root'), size);
      let started = performance.now();
      const files = await plainWalk(join(dir, 'root'));
      const walkMs = performance.now() - started;
      started = performance.now();
      const catalogOnly = await openWorld({ root: join(dir, 'root'), bodySearch: false, readOnly: true });
      const catalogMs = performance.now() - started;
      await catalogOnly.close();
      started = performance.now();
      const world = await openWorld({ root: join(dir, 'root'), readOnly: true });
      const fullMs = performance.now() - started;
      const documents = world.context.catalog.size;
      await world.close();
      lines.push(
        `  ${size} documents (${files} version files): baseline plain walk ${walkMs.toFixed(0)} ms; ` +
          `open + catalog ${catalogMs.toFixed(0)} ms (x${ratio(catalogMs, walkMs)}); ` +
          `open + catalog + body index ${fullMs.toFixed(0)} ms (x${ratio(fullMs, walkMs)}); catalogued ${documents}`,
      );
    } finally {
      await removeScratchDirectory(dir);
    }
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  console.log((await runPublishBench(Number(process.argv[2] ?? 300))).join('\n'));
  const sizes = (process.argv[3] ?? '10000,100000').split(',').map(Number);
  console.log((await runStartupBench(sizes)).join('\n'));
}
