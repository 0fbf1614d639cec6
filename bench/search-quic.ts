/**
 * Relaxed body-match LOOKUP (`match: body`, `match-terms: any`, what `mark_search`
 * asks a world) over real QUIC, beside a FETCH whose response has the same size,
 * interleaved one for one in the same run so machine load hits both alike. The
 * difference of the two is what the search path costs above moving the bytes.
 * Also times both in the world handler (no QUIC), to split that cost into handler
 * work and response-path work.
 *
 * The LOOKUP is the one `mark_search` sends each world in its second phase:
 * relaxed, `limit` 50 (10 documents × 5 rows), with the merged corpus statistics
 * (here the world's own), answered with row scores. The corpus is the 171-node
 * spex snapshot (bench/search-eval.ts); the queries are both question sets.
 *
 *   node bench/search-quic.ts [rounds] [limit]
 */
import { fileURLToPath } from 'node:url';
import { startBenchWorld } from './lib/bench-world.ts';
import { percentile } from './lib/measure.ts';
import { questionsOf, spexCorpus } from './search-eval.ts';
import { parseResponse } from '../src/protocol/response.ts';
import type { Metadata } from '../src/protocol/metadata.ts';

export interface SearchQuicResult {
  lines: string[];
  lookupP50Ms: number;
  fetchP50Ms: number;
}

export async function runSearchQuicBench(rounds = 10, limit = 50): Promise<SearchQuicResult> {
  const world = await startBenchWorld('search-quic');
  const { server, client, authority, handle } = world;
  try {
    const store = server.world.context.store;
    for (const doc of spexCorpus().docs) {
      const metadata: Record<string, string> = { title: doc.title };
      if (doc.description) metadata.description = doc.description;
      await store.publish(doc.id, Buffer.from(doc.body), metadata, {});
    }
    const queries = [...questionsOf('public'), ...questionsOf('second')].map((q) => q.query);
    // Phase one, once per query: the statistics phase two carries.
    const statsOf = new Map<string, Metadata>();
    for (const query of queries) {
      const base = { query, match: 'body', 'match-terms': 'any' };
      const answer = parseResponse(await handle('LOOKUP', '/', { ...base, 'corpus-stats': 'only' }));
      statsOf.set(query, {
        ...base,
        limit: String(limit),
        'corpus-stats': answer.metadata['corpus-stats'] ?? '',
        'corpus-df': answer.metadata['corpus-df'] ?? '',
      });
    }
    const lookupMetadata = (query: string): Metadata => statsOf.get(query) ?? {};

    // One FETCH target per query, padded so its response is as long as the LOOKUP's.
    const sizes: number[] = [];
    for (const [i, query] of queries.entries()) {
      const lookupBytes = (await handle('LOOKUP', '/', lookupMetadata(query))).length;
      sizes.push(lookupBytes);
      const path = `/same-size/${i}.md`;
      await store.publish(path, Buffer.from(''), {}, {});
      const emptyBytes = (await handle('FETCH', path, {})).length;
      const pad = Math.max(0, lookupBytes - emptyBytes);
      await store.publish(path, Buffer.from('x'.repeat(pad)), {}, { expectedVersion: 1 });
    }

    const times = {
      lookup: [] as number[],
      fetch: [] as number[],
      lookupHandler: [] as number[],
      fetchHandler: [] as number[],
    };
    // CPU time of this process per operation (client and world both live here),
    // beside wall time: on a contended machine it moves far less than wall time.
    const cpu = new Map<number[], number>();
    const timed = async (into: number[], op: () => Promise<unknown>): Promise<void> => {
      const start = performance.now();
      const used = process.cpuUsage();
      await op();
      const spent = process.cpuUsage(used);
      into.push(performance.now() - start);
      cpu.set(into, (cpu.get(into) ?? 0) + (spent.user + spent.system) / 1000);
    };
    for (let round = -1; round < rounds; round++) {
      for (const [i, query] of queries.entries()) {
        const warm = round < 0;
        const sink = (xs: number[]): number[] => (warm ? [] : xs);
        const path = `/same-size/${i}.md`;
        // Alternate which goes first, so neither always runs on a warmer connection.
        const pair = [
          () =>
            timed(sink(times.lookup), async () => {
              const r = await client.call(authority, { verb: 'LOOKUP', path: '/', metadata: lookupMetadata(query) });
              if (r.status !== 'ok') throw new Error(`LOOKUP answered ${r.status}`);
            }),
          () =>
            timed(sink(times.fetch), async () => {
              const r = await client.call(authority, { verb: 'FETCH', path });
              if (r.status !== 'ok') throw new Error(`FETCH answered ${r.status}`);
            }),
        ];
        if (i % 2 === 1) pair.reverse();
        for (const run of pair) await run();
        await timed(sink(times.lookupHandler), () => handle('LOOKUP', '/', lookupMetadata(query)));
        await timed(sink(times.fetchHandler), () => handle('FETCH', path, {}));
      }
    }
    const p = (xs: number[], q: number): number =>
      percentile(
        [...xs].sort((a, b) => a - b),
        q,
      );
    const cpuMs = (xs: number[]): number => (cpu.get(xs) ?? 0) / Math.max(1, xs.length);
    const line = (name: string, xs: number[]): string =>
      `${name.padEnd(44)} p50 ${p(xs, 0.5).toFixed(3)} ms   p99 ${p(xs, 0.99).toFixed(3)} ms   cpu ${cpuMs(xs).toFixed(3)} ms/op`;
    const sorted = [...sizes].sort((a, b) => a - b);
    const lookupP50Ms = p(times.lookup, 0.5);
    const fetchP50Ms = p(times.fetch, 0.5);
    return {
      lookupP50Ms,
      fetchP50Ms,
      lines: [
        `relaxed LOOKUP (limit ${limit}, supplied statistics) vs same-size FETCH over QUIC, ${queries.length} questions x ${rounds} rounds, 171 documents`,
        `response bytes: median ${percentile(sorted, 0.5)}, max ${sorted.at(-1)}`,
        line('LOOKUP match: body, match-terms: any (QUIC)', times.lookup),
        line('FETCH of the same size (QUIC)', times.fetch),
        line('LOOKUP in the world handler (no QUIC)', times.lookupHandler),
        line('FETCH in the world handler (no QUIC)', times.fetchHandler),
        `LOOKUP - FETCH over QUIC: p50 ${(lookupP50Ms - fetchP50Ms).toFixed(3)} ms (ratio ${(lookupP50Ms / fetchP50Ms).toFixed(3)}), cpu ${(cpuMs(times.lookup) - cpuMs(times.fetch)).toFixed(3)} ms/op`,
      ],
    };
  } finally {
    await world.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const result = await runSearchQuicBench(Number(process.argv[2] ?? 10), Number(process.argv[3] ?? 50));
  console.log(result.lines.join('\n'));
}
