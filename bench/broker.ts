/**
 * Broker benchmarks, each beside a baseline from the same run:
 *  - mark_fetch / mark_lookup tool calls through the broker (MCP over HTTP,
 *    then QUIC to the world), over a 2025-11-25 session and as stateless
 *    2026-07-28 requests, vs the same FETCH / LOOKUP sent straight to the
 *    world over QUIC, all warmed up alike and measured in alternated rounds;
 *  - mark_lookup_all across 1, 3 and 10 worlds (parallel fan-out should cost
 *    about one world, not the sum);
 *  - memory under 1,000 MCP sessions that never send DELETE.
 * Run: `node --expose-gc bench/broker.ts [calls] [rounds]`.
 *
 * `node bench/broker.ts --against <tree> [calls] [rounds]` measures instead the
 * broker's added p50 (tool call minus the same request straight to the world)
 * of this checkout and of another checkout of the project with its own
 * node_modules (e.g. `git worktree add /tmp/base main && cd /tmp/base && npm
 * ci`), both stacks running in this process and measured in alternating rounds,
 * for mark_fetch and mark_lookup over a 2025-11-25 session and over
 * stateless 2026-07-28 requests; beside it, each kind's process CPU time per
 * call (the whole stack runs in this process, so a difference between the
 * trees is their broker's, and CPU time moves less with the machine's load
 * than the wall clock does).
 */
import { resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { formatLatency, measureSequential, percentile, ratio } from './lib/measure.ts';
import { startStack, type Stack } from '../test/e2e/stack-fixture.ts';
import { initializeBody, jsonRpcHeaders } from '../test/broker/http/raw-http.ts';

async function seed(stack: Stack): Promise<void> {
  const client = await stack.connect();
  for (const world of stack.worlds.keys()) {
    await client.callTool({
      name: 'mark_publish',
      arguments: {
        url: `mark://${world}/docs/small.md`,
        body: '# Small\n\nA short note about the broker.\n',
        expected_version: 0,
        metadata: { tags: 'bench, broker' },
      },
    });
  }
  await client.close();
}

/**
 * The broker's added latency on this checkout: every kind of call (direct
 * FETCH/LOOKUP, the tools over a session and over stateless 2026-07-28
 * requests) warmed up alike, then measured in alternated rounds, so neither the
 * baseline nor a tool call is the one that pays for a cold JIT or a noisy
 * moment of the machine.
 */
export async function runToolOverheadBench(calls = 500, rounds = 6): Promise<string[]> {
  const tree = await openTree('this checkout', fileURLToPath(new URL('..', import.meta.url)));
  try {
    const perRound = Math.max(1, Math.round(calls / rounds));
    await sampleRound(tree, 100, false);
    for (let round = 0; round < rounds; round++) await sampleRound(tree, perRound, true);
    const result = (kind: CallKind) => {
      const sorted = [...tree.latencies[kind]].sort((a, b) => a - b);
      const totalMs = sorted.reduce((sum, ms) => sum + ms, 0);
      return {
        name: kind,
        operations: sorted.length,
        perSecond: (sorted.length * 1000) / totalMs,
        p50Ms: percentile(sorted, 0.5),
        p99Ms: percentile(sorted, 0.99),
      };
    };
    const lines = [
      `Tool call overhead, ${perRound * rounds} sequential calls of each kind in ${rounds} alternated rounds, small document, one world`,
    ];
    for (const kind of callKinds) {
      const direct = directOf(kind);
      const own = result(kind);
      lines.push(formatLatency(own));
      if (kind === direct) continue;
      const baseline = result(direct);
      const cpuAdded = cpuPerCall(tree, kind) - cpuPerCall(tree, direct);
      lines.push(
        `  broker adds ${(own.p50Ms - baseline.p50Ms).toFixed(3)} ms at p50 and ${cpuAdded.toFixed(3)} ms of CPU per call over the ${direct}; ratio calls/s ${ratio(own.perSecond, baseline.perSecond)}`,
      );
    }
    return lines;
  } finally {
    await tree.close();
  }
}

export async function runFanOutBench(calls = 100): Promise<string[]> {
  const lines = [`mark_lookup_all latency, ${calls} sequential calls`];
  let one = 0;
  for (const count of [1, 3, 10]) {
    const stack = await startStack({
      worlds: Array.from({ length: count }, (_, i) => `w${i}`),
      brokerConfig: { rateLimit: { disabled: true } },
    });
    try {
      await seed(stack);
      const client = await stack.connect();
      const worlds = [...stack.worlds.keys()];
      const sequential = await measureSequential(
        `baseline: mark_lookup on each of ${count}, one after another`,
        calls,
        async () => {
          for (const world of worlds)
            await client.callTool({ name: 'mark_lookup', arguments: { url: `mark://${world}/`, query: 'bench' } });
        },
      );
      const result = await measureSequential(`mark_lookup_all over ${count} world(s)`, calls, () =>
        client.callTool({ name: 'mark_lookup_all', arguments: { query: 'bench' } }),
      );
      if (count === 1) one = result.p50Ms;
      lines.push(formatLatency(sequential));
      lines.push(
        `${formatLatency(result)}   p50 vs 1 world: x${(result.p50Ms / one).toFixed(2)}, vs sequential sum: x${(result.p50Ms / sequential.p50Ms).toFixed(2)}`,
      );
    } finally {
      await stack.close();
    }
  }
  return lines;
}

export async function runSessionMemoryBench(sessions = 1000): Promise<string[]> {
  const stack = await startStack({ worlds: ['root'], brokerConfig: { rateLimit: { disabled: true } } });
  try {
    const gc = (globalThis as { gc?: () => void }).gc;
    gc?.();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < sessions; i++) {
      const response = await fetch(stack.mcpUrl, {
        method: 'POST',
        headers: jsonRpcHeaders(await stack.token(`user${i % 40}@example.com`)),
        body: initializeBody,
      });
      await response.text();
    }
    gc?.();
    const after = process.memoryUsage().heapUsed;
    const held = stack.broker.mcp.listener.sessions.size;
    return [
      `MCP sessions that never send DELETE: ${sessions} initialized by 40 subjects`,
      `  sessions held: ${held} (store cap 1000 total, 50 per subject; idle ones swept after 30 min)`,
      `  heap growth: ${((after - before) / 1024 / 1024).toFixed(1)} MiB, ${((after - before) / Math.max(1, held) / 1024).toFixed(1)} KiB per held session${gc ? '' : ' (run with --expose-gc for a clean figure)'}`,
    ];
  } finally {
    await stack.close();
  }
}

type CallKind =
  | 'direct FETCH'
  | 'mark_fetch session'
  | 'mark_fetch 2026-07-28'
  | 'direct LOOKUP'
  | 'mark_lookup session'
  | 'mark_lookup 2026-07-28';
const callKinds: readonly CallKind[] = [
  'direct FETCH',
  'mark_fetch session',
  'mark_fetch 2026-07-28',
  'direct LOOKUP',
  'mark_lookup session',
  'mark_lookup 2026-07-28',
];

/** The request straight to the world that a kind of call is measured against. */
const directOf = (kind: CallKind): CallKind =>
  kind.includes('lookup') || kind.includes('LOOKUP') ? 'direct LOOKUP' : 'direct FETCH';

/** One checkout's stack, with a session client, a 2026-07-28 client and a direct QUIC client. */
type TreeUnderTest = {
  label: string;
  call: Record<CallKind, () => Promise<unknown>>;
  latencies: Record<CallKind, number[]>;
  /** Process CPU time (all of the stack: client, broker, world) spent in each kind's recorded calls, ms. */
  cpuMs: Record<CallKind, number>;
  close(): Promise<void>;
};

async function openTree(label: string, root: string): Promise<TreeUnderTest> {
  const at = (path: string) => pathToFileURL(resolve(root, path)).href;
  const fixture = (await import(at('test/e2e/stack-fixture.ts'))) as typeof import('../test/e2e/stack-fixture.ts');
  const transport = (await import(
    at('src/transport/mark-client.ts')
  )) as typeof import('../src/transport/mark-client.ts');
  const worldFixture = (await import(
    at('test/world/world-fixture.ts')
  )) as typeof import('../test/world/world-fixture.ts');
  const stack = await fixture.startStack({ worlds: ['root'], brokerConfig: { rateLimit: { disabled: true } } });
  await seed(stack);
  const session = await stack.connect();
  const modern = new Client({ name: 'bench', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await modern.connect(
    new StreamableHTTPClientTransport(stack.mcpUrl, {
      requestInit: { headers: { authorization: `Bearer ${await stack.token()}` } },
    }),
  );
  const direct = new transport.MarkClient({ ca: (await worldFixture.testTls()).cert });
  const authority = { host: 'localhost', port: stack.worlds.get('root')!.port, dialHost: '127.0.0.1' };
  const fetchArgs = { name: 'mark_fetch', arguments: { url: 'mark://root/docs/small.md', force: true } };
  const lookupArgs = { name: 'mark_lookup', arguments: { url: 'mark://root/', query: 'bench' } };
  return {
    label,
    call: {
      'direct FETCH': () => direct.call(authority, { verb: 'FETCH', path: '/docs/small.md' }),
      'mark_fetch session': () => session.callTool(fetchArgs),
      'mark_fetch 2026-07-28': () => modern.callTool(fetchArgs),
      'direct LOOKUP': () => direct.call(authority, { verb: 'LOOKUP', path: '/', metadata: { query: 'bench' } }),
      'mark_lookup session': () => session.callTool(lookupArgs),
      'mark_lookup 2026-07-28': () => modern.callTool(lookupArgs),
    },
    latencies: Object.fromEntries(callKinds.map((kind) => [kind, []])) as unknown as Record<CallKind, number[]>,
    cpuMs: Object.fromEntries(callKinds.map((kind) => [kind, 0])) as Record<CallKind, number>,
    async close() {
      await modern.close();
      await direct.close();
      await stack.close();
    },
  };
}

async function sampleRound(tree: TreeUnderTest, calls: number, record: boolean): Promise<void> {
  for (const kind of callKinds) {
    const operation = tree.call[kind];
    const cpuBefore = process.cpuUsage();
    for (let i = 0; i < calls; i++) {
      const begun = performance.now();
      await operation();
      if (record) tree.latencies[kind].push(performance.now() - begun);
    }
    const cpu = process.cpuUsage(cpuBefore);
    if (record) tree.cpuMs[kind] += (cpu.user + cpu.system) / 1000;
  }
}

/** Milliseconds of this process's CPU per measured call of `kind`, as sampleRound adds it up. */
const cpuPerCall = (tree: TreeUnderTest, kind: CallKind) => tree.cpuMs[kind] / tree.latencies[kind].length;

const p50 = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    0.5,
  );

/** Broker-added p50 of this checkout beside another checkout's, alternated round by round. */
export async function runOverheadAgainst(baselineRoot: string, calls = 300, rounds = 6): Promise<string[]> {
  const baseline = await openTree(`baseline ${baselineRoot}`, baselineRoot);
  const candidate = await openTree('candidate (this checkout)', fileURLToPath(new URL('..', import.meta.url)));
  try {
    const perRound = Math.max(1, Math.round(calls / rounds));
    for (const tree of [baseline, candidate]) await sampleRound(tree, 20, false);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? [baseline, candidate] : [candidate, baseline];
      for (const tree of order) await sampleRound(tree, perRound, true);
    }
    const added = (tree: TreeUnderTest, tool: CallKind, direct: CallKind) =>
      p50(tree.latencies[tool]) - p50(tree.latencies[direct]);
    const lines = [
      `Broker-added p50, ${perRound * rounds} calls of each kind per tree in ${rounds} alternated rounds, small document, one world`,
      `${'call'.padEnd(26)}${'baseline p50'.padStart(14)}${'candidate p50'.padStart(15)}${'base added'.padStart(12)}${'cand added'.padStart(12)}   ratio`,
    ];
    for (const kind of callKinds) {
      const direct = directOf(kind);
      const cells = [p50(baseline.latencies[kind]).toFixed(3), p50(candidate.latencies[kind]).toFixed(3)];
      if (kind === direct) {
        lines.push(`${kind.padEnd(26)}${cells[0]!.padStart(14)}${cells[1]!.padStart(15)}`);
        continue;
      }
      const base = added(baseline, kind, direct);
      const cand = added(candidate, kind, direct);
      lines.push(
        `${kind.padEnd(26)}${cells[0]!.padStart(14)}${cells[1]!.padStart(15)}${base.toFixed(3).padStart(12)}${cand.toFixed(3).padStart(12)}   ${(cand / base).toFixed(2)}`,
      );
    }
    lines.push(
      '(ms; "added" = tool call p50 minus the direct request p50 of the same tree; ratio = candidate / baseline added)',
      `${'CPU per call'.padEnd(26)}${'baseline'.padStart(14)}${'candidate'.padStart(15)}${'base added'.padStart(12)}${'cand added'.padStart(12)}   ratio`,
    );
    for (const kind of callKinds) {
      const direct = directOf(kind);
      const cells = [cpuPerCall(baseline, kind).toFixed(3), cpuPerCall(candidate, kind).toFixed(3)];
      if (kind === direct) {
        lines.push(`${kind.padEnd(26)}${cells[0]!.padStart(14)}${cells[1]!.padStart(15)}`);
        continue;
      }
      const base = cpuPerCall(baseline, kind) - cpuPerCall(baseline, direct);
      const cand = cpuPerCall(candidate, kind) - cpuPerCall(candidate, direct);
      lines.push(
        `${kind.padEnd(26)}${cells[0]!.padStart(14)}${cells[1]!.padStart(15)}${base.toFixed(3).padStart(12)}${cand.toFixed(3).padStart(12)}   ${(cand / base).toFixed(2)}`,
      );
    }
    lines.push(
      '(ms of process CPU per call, client, broker and world together; "added" = tool call minus the direct request of the same tree)',
    );
    return lines;
  } finally {
    await candidate.close();
    await baseline.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv.includes('--against')) {
  const args = process.argv.slice(2);
  const at = args.indexOf('--against');
  const tree = args[at + 1];
  if (tree === undefined) throw new Error('--against needs the path of a baseline checkout');
  const [calls, rounds] = args.filter((_, i) => i !== at && i !== at + 1).map(Number);
  console.log((await runOverheadAgainst(tree, calls ?? 300, rounds ?? 6)).join('\n'));
} else if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const calls = Number(process.argv[2] ?? 500);
  const rounds = Number(process.argv[3] ?? 6);
  console.log((await runToolOverheadBench(calls, rounds)).join('\n'));
  console.log((await runFanOutBench(Math.max(20, Math.round(calls / 5)))).join('\n'));
  console.log((await runSessionMemoryBench()).join('\n'));
}
