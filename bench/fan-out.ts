/**
 * Fan-out: `mark_lookup_all` and `mark_search` over 1, 10 and 30 worlds, each world
 * its own `demarkus-broker world` process (so the worlds' CPU is not this process's),
 * behind the real broker and the MCP SDK client in this process. Every world holds
 * the same small corpus. Reported per tool: p50/p99 and the p50 ratio to one world,
 * all world counts measured in one run with the calls interleaved round by round,
 * so machine load hits every count alike.
 *
 *   node bench/fan-out.ts [rounds] [counts, e.g. 1,10,30]
 */
import { rm } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { percentile } from './lib/measure.ts';
import { documentsPerWorld, fleetDirectory, startFleet, stopFleet, type Fleet } from './lib/world-fleet.ts';
import { testTls } from '../test/world/world-fixture.ts';

/**
 * The calls measured, by label. The broker remembers each world's search statistics
 * (src/broker/search/stats-memory.ts), so asking the same question again takes one
 * round per world; `new words` adds a word never asked before to every call, so
 * each of its calls takes the two rounds of a question the broker has not seen.
 */
const calls: Record<string, { tool: string; args: (round: number) => Record<string, unknown> }> = {
  mark_lookup_all: { tool: 'mark_lookup_all', args: () => ({ query: 'broker' }) },
  mark_search: { tool: 'mark_search', args: () => ({ query: 'how does the broker reach a world over QUIC' }) },
  'mark_search, new words': {
    tool: 'mark_search',
    args: (round) => ({ query: `how does the broker reach a world over QUIC q${round + 100}z` }),
  },
};

export async function runFanOutBench(rounds = 30, counts = [1, 10, 30]): Promise<string[]> {
  const tls = await testTls();
  const dir = await fleetDirectory(tls, counts);
  const fleets = new Map<number, Fleet>();
  try {
    for (const count of counts) fleets.set(count, await startFleet(dir, count, tls));
    const times = new Map<string, number[]>();
    for (let round = -3; round < rounds; round++) {
      for (const [name, { tool, args }] of Object.entries(calls)) {
        for (const count of counts) {
          const fleet = fleets.get(count)!;
          const start = performance.now();
          const result = (await fleet.client.callTool({ name: tool, arguments: args(round) })) as { isError?: boolean };
          const ms = performance.now() - start;
          if (result.isError) throw new Error(`${name} over ${count} worlds failed`);
          if (round < 0) continue;
          const key = `${name} ${count}`;
          times.set(key, [...(times.get(key) ?? []), ms]);
        }
      }
    }
    const lines = [
      `fan-out, worlds in separate processes, ${documentsPerWorld} documents each, ${rounds} rounds interleaved`,
    ];
    for (const name of Object.keys(calls)) {
      const p50 = (count: number): number =>
        percentile(
          [...(times.get(`${name} ${count}`) ?? [])].sort((a, b) => a - b),
          0.5,
        );
      const p99 = (count: number): number =>
        percentile(
          [...(times.get(`${name} ${count}`) ?? [])].sort((a, b) => a - b),
          0.99,
        );
      for (const count of counts)
        lines.push(
          `${`${name} over ${count} world(s)`.padEnd(46)} p50 ${p50(count).toFixed(2)} ms   p99 ${p99(count).toFixed(2)} ms   p50 vs 1 world x${(p50(count) / p50(counts[0]!)).toFixed(2)}`,
        );
    }
    return lines;
  } finally {
    for (const fleet of fleets.values()) await stopFleet(fleet);
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const counts = process.argv[3] ? process.argv[3].split(',').map(Number) : undefined;
  console.log((await runFanOutBench(Number(process.argv[2] ?? 30), counts)).join('\n'));
}
