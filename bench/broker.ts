/**
 * Broker benchmarks, each beside a baseline from the same run:
 *  - mark_fetch / mark_lookup tool calls through the broker (MCP over HTTP,
 *    then QUIC to the world), over a 2025-11-25 session and as stateless
 *    2026-07-28 requests, vs the same FETCH / LOOKUP sent straight to the
 *    world over QUIC, all warmed up alike and measured in alternated rounds;
 *    beside them, in the same rounds, the floor of an MCP call here: the
 *    constant tool of the SDK's minimal server (bench/lib/minimal-mcp-server.ts)
 *    over a session (through the SDK's Node transport, and again through
 *    the broker's own wiring of the SDK's session transport, which costs
 *    less) and as stateless 2026-07-28 requests, with the same
 *    clients as the broker's calls. Each tool line then also says what the
 *    broker adds over that floor plus the direct request (tool p50 − floor p50
 *    − direct p50, and the same for CPU per call): the broker's own work, as
 *    against the MCP call itself (SDK client, HTTP round trip, SDK server,
 *    the process wake-ups on this machine). The minimal server runs in this
 *    process like the broker, the world and the clients, so its CPU is counted
 *    the same way, by this process's CPU time across its calls;
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
import { Client as SessionClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as SessionClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { formatLatency, measureSequential, percentile, ratio, type LatencyResult } from './lib/measure.ts';
import { constantTool, startMinimalMcpServer } from './lib/minimal-mcp-server.ts';
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
 * requests, and the floor: a minimal MCP server's constant tool in both eras)
 * warmed up alike, then measured in alternated rounds, so neither a baseline
 * nor a tool call is the one that pays for a cold JIT or a noisy moment of the
 * machine.
 */
export async function runToolOverheadBench(calls = 500, rounds = 6): Promise<string[]> {
  const tree = await openTree('this checkout', fileURLToPath(new URL('..', import.meta.url)));
  const floor = await openFloor();
  try {
    const perRound = Math.max(1, Math.round(calls / rounds));
    await sampleRound(tree, 100, false);
    await sampleRound(floor, 100, false);
    for (let round = 0; round < rounds; round++) {
      await sampleRound(tree, perRound, true);
      await sampleRound(floor, perRound, true);
    }
    const result = <K extends string>(measured: Measured<K>, kind: K) => latencyResult(kind, measured.latencies[kind]);
    const lines = [
      `Tool call overhead, ${perRound * rounds} sequential calls of each kind in ${rounds} alternated rounds, small document, one world`,
    ];
    for (const kind of callKinds) {
      const direct = directOf(kind);
      const own = result(tree, kind);
      lines.push(formatLatency(own));
      if (kind === direct) continue;
      const baseline = result(tree, direct);
      const cpuAdded = cpuPerCall(tree, kind) - cpuPerCall(tree, direct);
      lines.push(
        `  broker adds ${(own.p50Ms - baseline.p50Ms).toFixed(3)} ms at p50 and ${cpuAdded.toFixed(3)} ms of CPU per call over the ${direct}; ratio calls/s ${ratio(own.perSecond, baseline.perSecond)}`,
      );
      const floorKind = floorOf(kind);
      const overFloor = own.p50Ms - result(floor, floorKind).p50Ms - baseline.p50Ms;
      const cpuOverFloor = cpuAdded - cpuPerCall(floor, floorKind);
      lines.push(
        `  broker adds ${overFloor.toFixed(3)} ms at p50 and ${cpuOverFloor.toFixed(3)} ms of CPU per call over the ${floorKind} + the ${direct} (its own work beyond an MCP call and the world request)`,
      );
      if (floorKind !== 'constant tool session') continue;
      // The session floor above goes through the SDK's Node transport, which costs more than the broker's wiring.
      const wiredFloor = 'constant tool session, broker wiring';
      lines.push(
        `  broker adds ${(own.p50Ms - result(floor, wiredFloor).p50Ms - baseline.p50Ms).toFixed(3)} ms at p50 and ${(cpuAdded - cpuPerCall(floor, wiredFloor)).toFixed(3)} ms of CPU per call over the ${wiredFloor} + the ${direct}`,
      );
    }
    for (const kind of floorKinds) {
      const own = result(floor, kind);
      lines.push(
        formatLatency(own),
        `  an MCP call that does nothing: ${own.p50Ms.toFixed(3)} ms at p50 and ${cpuPerCall(floor, kind).toFixed(3)} ms of CPU per call, what a tool call of this era would add over its direct request if the broker's own work cost nothing`,
      );
    }
    return lines;
  } finally {
    await floor.close();
    await tree.close();
  }
}

/** Rate and percentiles of one kind's recorded calls. */
function latencyResult(name: string, latencies: readonly number[]): LatencyResult {
  const sorted = [...latencies].sort((a, b) => a - b);
  const totalMs = sorted.reduce((sum, ms) => sum + ms, 0);
  return {
    name,
    operations: sorted.length,
    perSecond: (sorted.length * 1000) / totalMs,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
  };
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

/** The minimal MCP server's constant tool, over a session and as stateless 2026-07-28 requests. */
type FloorKind = 'constant tool session' | 'constant tool 2026-07-28' | 'constant tool session, broker wiring';
const floorKinds: readonly FloorKind[] = [
  'constant tool session',
  'constant tool 2026-07-28',
  'constant tool session, broker wiring',
];

/** The floor call of the same era as a broker tool call. */
const floorOf = (kind: CallKind): FloorKind =>
  kind.endsWith('2026-07-28') ? 'constant tool 2026-07-28' : 'constant tool session';

/** Kinds of call, each measured the same way by sampleRound. */
type Measured<K extends string> = {
  kinds: readonly K[];
  call: Record<K, () => Promise<unknown>>;
  latencies: Record<K, number[]>;
  /** Process CPU time (all of this process: clients and servers) spent in each kind's recorded calls, ms. */
  cpuMs: Record<K, number>;
};

/** Empty latencies and CPU tallies for `kinds`. */
function tallies<K extends string>(kinds: readonly K[]): Pick<Measured<K>, 'kinds' | 'latencies' | 'cpuMs'> {
  return {
    kinds,
    latencies: Object.fromEntries(kinds.map((kind) => [kind, []])) as unknown as Record<K, number[]>,
    cpuMs: Object.fromEntries(kinds.map((kind) => [kind, 0])) as Record<K, number>,
  };
}

/** One checkout's stack, with a session client, a 2026-07-28 client and a direct QUIC client. */
type TreeUnderTest = Measured<CallKind> & {
  label: string;
  close(): Promise<void>;
};

/**
 * The minimal MCP server in this process, called with the same clients as the
 * broker's tool calls: the SDK's v1 client over a session (as the stack's
 * `connect` makes it) and the v2 client pinned to 2026-07-28.
 */
async function openFloor(): Promise<Measured<FloorKind> & { close(): Promise<void> }> {
  const server = await startMinimalMcpServer();
  const session = new SessionClient({ name: 'bench', version: '0' });
  await session.connect(new SessionClientTransport(new URL(server.url)));
  const modern = new Client({ name: 'bench', version: '0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await modern.connect(new StreamableHTTPClientTransport(new URL(server.modernUrl)));
  const wired = new SessionClient({ name: 'bench', version: '0' });
  await wired.connect(new SessionClientTransport(new URL(server.brokerWiredUrl)));
  const constant = { name: constantTool, arguments: {} };
  return {
    call: {
      'constant tool session': () => session.callTool(constant),
      'constant tool 2026-07-28': () => modern.callTool(constant),
      'constant tool session, broker wiring': () => wired.callTool(constant),
    },
    ...tallies(floorKinds),
    async close() {
      await modern.close();
      await session.close();
      await wired.close();
      await server.close();
    },
  };
}

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
    ...tallies(callKinds),
    async close() {
      await modern.close();
      await direct.close();
      await stack.close();
    },
  };
}

async function sampleRound<K extends string>(measured: Measured<K>, calls: number, record: boolean): Promise<void> {
  for (const kind of measured.kinds) {
    const operation = measured.call[kind];
    const cpuBefore = process.cpuUsage();
    for (let i = 0; i < calls; i++) {
      const begun = performance.now();
      await operation();
      if (record) measured.latencies[kind].push(performance.now() - begun);
    }
    const cpu = process.cpuUsage(cpuBefore);
    if (record) measured.cpuMs[kind] += (cpu.user + cpu.system) / 1000;
  }
}

/** Milliseconds of this process's CPU per measured call of `kind`, as sampleRound adds it up. */
const cpuPerCall = <K extends string>(measured: Measured<K>, kind: K) =>
  measured.cpuMs[kind] / measured.latencies[kind].length;

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
