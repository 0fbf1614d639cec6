/**
 * Broker benchmarks, each beside a baseline from the same run:
 *  - mark_fetch / mark_lookup tool calls through the broker (MCP over HTTP,
 *    then QUIC to the world) vs the same FETCH / LOOKUP sent straight to the
 *    world over QUIC;
 *  - mark_lookup_all across 1, 3 and 10 worlds (parallel fan-out should cost
 *    about one world, not the sum);
 *  - memory under 1,000 MCP sessions that never send DELETE.
 * Run: `node --expose-gc bench/broker.ts [calls]`.
 */
import { fileURLToPath } from 'node:url';
import { formatLatency, measureSequential, ratio } from './lib/measure.ts';
import { startStack, type Stack } from '../test/e2e/stack-fixture.ts';
import { MarkClient } from '../src/transport/mark-client.ts';
import { testTls } from '../test/world/world-fixture.ts';

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

export async function runToolOverheadBench(calls = 500): Promise<string[]> {
  const stack = await startStack({ worlds: ['root'], brokerConfig: { rateLimit: { disabled: true } } });
  try {
    await seed(stack);
    const client = await stack.connect();
    const tls = await testTls();
    const direct = new MarkClient({ ca: tls.cert });
    const world = stack.worlds.get('root')!;
    const authority = { host: 'localhost', port: world.port, dialHost: '127.0.0.1' };
    const directFetch = await measureSequential('direct FETCH over QUIC (baseline)', calls, () =>
      direct.call(authority, { verb: 'FETCH', path: '/docs/small.md' }),
    );
    const toolFetch = await measureSequential('mark_fetch through the broker (force)', calls, () =>
      client.callTool({ name: 'mark_fetch', arguments: { url: 'mark://root/docs/small.md', force: true } }),
    );
    const directLookup = await measureSequential('direct LOOKUP over QUIC (baseline)', calls, () =>
      direct.call(authority, { verb: 'LOOKUP', path: '/', metadata: { query: 'bench' } }),
    );
    const toolLookup = await measureSequential('mark_lookup through the broker', calls, () =>
      client.callTool({ name: 'mark_lookup', arguments: { url: 'mark://root/', query: 'bench' } }),
    );
    await direct.close();
    return [
      `Tool call overhead, ${calls} sequential calls, small document, one world`,
      formatLatency(directFetch),
      formatLatency(toolFetch),
      `  broker adds ${(toolFetch.p50Ms - directFetch.p50Ms).toFixed(3)} ms at p50; ratio calls/s ${ratio(toolFetch.perSecond, directFetch.perSecond)}`,
      formatLatency(directLookup),
      formatLatency(toolLookup),
      `  broker adds ${(toolLookup.p50Ms - directLookup.p50Ms).toFixed(3)} ms at p50; ratio calls/s ${ratio(toolLookup.perSecond, directLookup.perSecond)}`,
    ];
  } finally {
    await stack.close();
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
        headers: {
          authorization: `Bearer ${await stack.token(`user${i % 40}@example.com`)}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'bench', version: '0' } },
        }),
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const calls = Number(process.argv[2] ?? 500);
  console.log((await runToolOverheadBench(calls)).join('\n'));
  console.log((await runFanOutBench(Math.max(20, Math.round(calls / 5)))).join('\n'));
  console.log((await runSessionMemoryBench()).join('\n'));
}
