/**
 * Fan-out: `mark_lookup_all` and `mark_search` over 1, 10 and 30 worlds, each world
 * its own `demarkus-broker world` process (so the worlds' CPU is not this process's),
 * behind the real broker and the MCP SDK client in this process. Every world holds
 * the same small corpus. Reported per tool: p50/p99 and the p50 ratio to one world,
 * all world counts measured in one run with the calls interleaved round by round,
 * so machine load hits every count alike. Every measurement starts after a pause
 * of `settleMs`, so none of them pays the tail of the one before (a 30-world
 * call's worlds are still acknowledging and collecting its streams when it
 * returns, and the one-world call after it used to carry that).
 *
 * Each round also sends one bare UDP datagram to each of as many echo processes
 * (bench/lib/udp-echo-fleet.ts): the machine's floor for reaching that many
 * processes at once. Each tool's line adds the ratio a fan-out would have if
 * every world beyond the first cost only that floor, so the figures say how much
 * of a ratio is this machine and how much is our code.
 *
 *   node bench/fan-out.ts [rounds] [counts, e.g. 1,10,30]
 */
import { setTimeout } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { percentile } from './lib/measure.ts';
import { removeScratchDirectory } from './lib/scratch.ts';
import { startUdpEchoFleet, type UdpEchoFleet } from './lib/udp-echo-fleet.ts';
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

/** The label of the machine's floor: bare UDP to that many echo processes. */
const floorName = 'floor: one UDP datagram to each';

/** The pause before every measurement: longer than a world's tail after an answer. */
const settleMs = 50;

export async function runFanOutBench(rounds = 30, counts = [1, 10, 30]): Promise<string[]> {
  const tls = await testTls();
  const dir = await fleetDirectory(tls, counts);
  const fleets = new Map<number, Fleet>();
  let echoes: UdpEchoFleet | undefined;
  try {
    echoes = await startUdpEchoFleet(Math.max(...counts));
    for (const count of counts) fleets.set(count, await startFleet(dir, count, tls));
    const times = new Map<string, number[]>();
    const record = (key: string, ms: number): void => {
      const recorded = times.get(key);
      if (recorded) recorded.push(ms);
      else times.set(key, [ms]);
    };
    for (let round = -3; round < rounds; round++) {
      for (const count of counts) {
        await setTimeout(settleMs);
        const start = performance.now();
        await echoes.fanOut(count);
        if (round >= 0) record(`${floorName} ${count}`, performance.now() - start);
      }
      for (const [name, { tool, args }] of Object.entries(calls)) {
        for (const count of counts) {
          const fleet = fleets.get(count)!;
          await setTimeout(settleMs);
          const start = performance.now();
          const result = (await fleet.client.callTool({ name: tool, arguments: args(round) })) as { isError?: boolean };
          const ms = performance.now() - start;
          if (result.isError) throw new Error(`${name} over ${count} worlds failed`);
          if (round >= 0) record(`${name} ${count}`, ms);
        }
      }
    }
    const lines = [
      `fan-out, worlds in separate processes, ${documentsPerWorld} documents each, ${rounds} rounds interleaved, ${settleMs} ms pause before each`,
    ];
    for (const recorded of times.values()) recorded.sort((a, b) => a - b);
    const at = (name: string, count: number, fraction: number): number =>
      percentile(times.get(`${name} ${count}`) ?? [], fraction);
    const first = counts[0]!;
    for (const name of [floorName, ...Object.keys(calls)]) {
      const firstP50 = at(name, first, 0.5);
      for (const count of counts) {
        const p50 = at(name, count, 0.5);
        const label = `${name} over ${count} ${name === floorName ? 'process(es)' : 'world(s)'}`;
        // What the ratio would be if each world beyond the first cost only the floor's extra.
        const floorBound = (firstP50 + at(floorName, count, 0.5) - at(floorName, first, 0.5)) / firstP50;
        lines.push(
          `${label.padEnd(52)} p50 ${p50.toFixed(2)} ms   p99 ${at(name, count, 0.99).toFixed(2)} ms   p50 vs ${first} x${(p50 / firstP50).toFixed(2)}${name === floorName ? '' : `   floor-bound x${floorBound.toFixed(2)}`}`,
        );
      }
    }
    return lines;
  } finally {
    await echoes?.stop();
    for (const fleet of fleets.values()) await stopFleet(fleet);
    await removeScratchDirectory(dir);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const counts = process.argv[3] ? process.argv[3].split(',').map(Number) : undefined;
  console.log((await runFanOutBench(Number(process.argv[2] ?? 30), counts)).join('\n'));
}
