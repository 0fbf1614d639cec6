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
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { percentile } from './lib/measure.ts';
import { startWorldProcess, type WorldProcess } from '../test/cli/cli-process.ts';
import { startBrokerFront, type BrokerFront } from '../test/e2e/stack-fixture.ts';
import { testTls } from '../test/world/world-fixture.ts';
import { generateToken, hashToken } from '../src/protocol/token.ts';
import { MarkClient } from '../src/transport/mark-client.ts';

const documentsPerWorld = 20;

interface Fleet {
  worlds: WorldProcess[];
  front: BrokerFront;
  client: Client;
}

async function seedWorld(markClient: MarkClient, port: number, token: string, world: number): Promise<void> {
  const authority = { host: 'localhost', port, dialHost: '127.0.0.1' };
  for (let d = 0; d < documentsPerWorld; d++) {
    const body = `# Note ${d} of world ${world}\n\n## Deployment\n\nHow the broker reaches world ${world} over QUIC, with retries and timeouts.\n\n## Search\n\nEvery note mentions the broker, the catalog and full-text search.\n`;
    const response = await markClient.call(authority, {
      verb: 'PUBLISH',
      path: `/notes/n${d}.md`,
      metadata: { auth: token, 'expected-version': '0', tags: 'bench, broker' },
      body,
    });
    if (response.status !== 'created') throw new Error(`seed world ${world}: ${response.status}`);
  }
}

async function startFleet(dir: string, count: number, tls: { cert: string; key: string }): Promise<Fleet> {
  const token = generateToken();
  const certFile = join(dir, 'ca.pem');
  const keyFile = join(dir, 'key.pem');
  const base = join(dir, `fleet-${count}`);
  await mkdir(base, { recursive: true });
  const specs = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const root = join(base, `w${i}`);
      const tokensFile = join(base, `w${i}.toml`);
      await writeFile(
        tokensFile,
        `[tokens.bench]\nhash = "${hashToken(token)}"\npaths = ["/**"]\noperations = ["publish"]\n`,
      );
      return { name: `w${i}`, root, tokensFile };
    }),
  );
  const worlds: WorldProcess[] = [];
  try {
    // Five at a time: quicker than one by one, gentler on a loaded machine than all at once.
    for (let i = 0; i < specs.length; i += 5)
      worlds.push(...(await Promise.all(specs.slice(i, i + 5).map((spec) => startWorld(spec, certFile, keyFile)))));
    const markClient = new MarkClient({ ca: tls.cert });
    try {
      for (const [i, world] of worlds.entries()) await seedWorld(markClient, world.port, token, i);
    } finally {
      await markClient.close();
    }
    const front = await startBrokerFront(
      base,
      specs.map((spec, i) => ({ name: spec.name, port: worlds[i]!.port, tokensFile: spec.tokensFile })),
      { brokerConfig: { rateLimit: { disabled: true } } },
    );
    return { worlds, front, client: await front.connect() };
  } catch (error) {
    await stopWorlds(worlds);
    throw error;
  }
}

function startWorld(
  spec: { name: string; root: string; tokensFile: string },
  certFile: string,
  keyFile: string,
): Promise<WorldProcess> {
  // A loaded machine can take many seconds to start Node: allow two minutes.
  return startWorldProcess(
    [
      '--root',
      spec.root,
      '--tokens',
      spec.tokensFile,
      '--listen',
      '127.0.0.1:0',
      '--tls-cert',
      certFile,
      '--tls-key',
      keyFile,
      '--name',
      spec.name,
      '--rate-limit',
      '0',
    ],
    120_000,
  );
}

async function stopWorlds(worlds: readonly WorldProcess[]): Promise<void> {
  for (const world of worlds) {
    world.child.kill('SIGTERM');
    await world.exited;
  }
}

async function stopFleet(fleet: Fleet): Promise<void> {
  await fleet.front.close();
  await stopWorlds(fleet.worlds);
}

const calls = {
  mark_lookup_all: { query: 'broker' },
  mark_search: { query: 'how does the broker reach a world over QUIC' },
} as const;

export async function runFanOutBench(rounds = 30, counts = [1, 10, 30]): Promise<string[]> {
  const dir = await mkdtemp(join(tmpdir(), 'bench-fan-out-'));
  const tls = await testTls();
  await writeFile(join(dir, 'ca.pem'), tls.cert);
  await writeFile(join(dir, 'key.pem'), tls.key);
  // The broker of each fleet reads `<fleet dir>/ca.pem`.
  for (const count of counts) {
    await mkdir(join(dir, `fleet-${count}`), { recursive: true });
    await writeFile(join(dir, `fleet-${count}`, 'ca.pem'), tls.cert);
  }
  const fleets = new Map<number, Fleet>();
  try {
    for (const count of counts) fleets.set(count, await startFleet(dir, count, tls));
    const times = new Map<string, number[]>();
    for (let round = -3; round < rounds; round++) {
      for (const [name, args] of Object.entries(calls)) {
        for (const count of counts) {
          const fleet = fleets.get(count)!;
          const start = performance.now();
          const result = (await fleet.client.callTool({ name, arguments: args })) as { isError?: boolean };
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
          `${`${name} over ${count} world(s)`.padEnd(36)} p50 ${p50(count).toFixed(2)} ms   p99 ${p99(count).toFixed(2)} ms   p50 vs 1 world x${(p50(count) / p50(counts[0]!)).toFixed(2)}`,
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
