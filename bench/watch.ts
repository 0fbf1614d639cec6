/**
 * Two costs of this round's features, each beside a baseline from the same run:
 *
 *  - Freshness: time from a publish on a world to the new backlink being in
 *    the broker's link graph. WATCH (the broker follows each world's change
 *    feed) against polling the changed document every `pollMs`, both fed by
 *    the same publishes, interleaved. The poller is the most favourable
 *    polling possible (it knows which document to read); the broker's real
 *    fallback waits for the hub's `/graph.md` and a 5-minute seed throttle.
 *  - structuredContent: the broker-side cost of a tool call that answers text
 *    and structure (outputSchema check, JSON-RPC result serialised) against
 *    the same call answering text only, interleaved, with the bytes each
 *    puts on the wire.
 *
 * Run: `node bench/watch.ts [samples] [pollMs]`.
 */
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { BrokerGraph } from '../src/broker/graph/index.ts';
import { callTool } from '../src/broker/mcp/run-tool.ts';
import type { ToolDefinition } from '../src/broker/mcp/definitions.ts';
import { markFetch } from '../src/broker/mcp/tools/fetch.ts';
import { markLookup } from '../src/broker/mcp/tools/lookup.ts';
import { markVersions } from '../src/broker/mcp/tools/versions.ts';
import { percentile } from './lib/measure.ts';
import { startStack } from '../test/e2e/stack-fixture.ts';
import { toolContext } from '../test/broker/mcp/helpers/context.ts';
import { startTestStack } from '../test/broker/mcp/helpers/fixture-gateway.ts';

export async function runFreshnessBench(samples = 10, pollMs = 1000): Promise<string[]> {
  const stack = await startStack({ worlds: ['root'], brokerConfig: { rateLimit: { disabled: true } } });
  const stopPolling = new AbortController();
  try {
    const client = await stack.connect();
    const { broker } = stack;
    for (let i = 0; i < 200 && !broker.watcher.watching('root'); i++) await sleep(25);
    if (!broker.watcher.watching('root')) throw new Error('the broker is not watching the world');
    await client.callTool({
      name: 'mark_publish',
      arguments: { url: 'mark://root/target.md', body: '# Target\n', expected_version: 0 },
    });
    // The baseline graph hears nothing from the change feed; its poller re-reads the document every pollMs.
    const polled = new BrokerGraph({ gateway: broker.gateway });
    let pollTarget = '';
    const poller = (async () => {
      while (!stopPolling.signal.aborted) {
        if (pollTarget !== '') await polled.refresh(pollTarget).catch(() => {});
        await sleep(pollMs, undefined, { signal: stopPolling.signal }).catch(() => {});
      }
    })();
    const watchMs: number[] = [];
    const pollLatencyMs: number[] = [];
    for (let i = 0; i < samples; i++) {
      const source = `mark://root/sources/s${i}.md`;
      pollTarget = source;
      const linked = (graph: BrokerGraph) => graph.backlinks('mark://root/target.md').some((b) => b.url === source);
      // A random phase against the poller, as a publish would have in production.
      await sleep(Math.floor(Math.random() * pollMs));
      const started = performance.now();
      await client.callTool({
        name: 'mark_publish',
        arguments: { url: source, body: `# S${i}\n\nSee [the target](../target.md).\n`, expected_version: 0 },
      });
      let watched: number | undefined;
      let pollSeen: number | undefined;
      while (watched === undefined || pollSeen === undefined) {
        const now = performance.now() - started;
        if (watched === undefined && linked(broker.graph)) watched = now;
        if (pollSeen === undefined && linked(polled)) pollSeen = now;
        if (now > 30_000 + 2 * pollMs) throw new Error(`sample ${i}: no backlink after ${now.toFixed(0)} ms`);
        await sleep(2);
      }
      watchMs.push(watched);
      pollLatencyMs.push(pollSeen);
    }
    stopPolling.abort();
    await poller;
    const line = (name: string, values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return `  ${name.padEnd(44)} p50 ${percentile(sorted, 0.5).toFixed(1).padStart(7)} ms  p95 ${percentile(sorted, 0.95).toFixed(1).padStart(7)} ms`;
    };
    const p50 = (values: number[]) =>
      percentile(
        [...values].sort((a, b) => a - b),
        0.5,
      );
    return [
      `Freshness: publish through the broker to a visible backlink, ${samples} publishes (one world, real QUIC)`,
      line('WATCH (change feed)', watchMs),
      line(`polling the document every ${pollMs} ms (baseline)`, pollLatencyMs),
      `  ratio WATCH / polling at p50: ${(p50(watchMs) / p50(pollLatencyMs)).toFixed(3)}`,
      `  (the broker's fallback without WATCH is the 5-minute /graph.md seed throttle, after the hourly crawl republishes it)`,
    ];
  } finally {
    stopPolling.abort();
    await stack.close();
  }
}

/** The same tool answering text only: no outputSchema to check, no structuredContent to send. */
function textOnly(tool: ToolDefinition): ToolDefinition {
  const { outputSchema: _schema, ...rest } = tool;
  return {
    ...rest,
    handler: async (args, ctx) => {
      const { structured: _dropped, ...result } = await tool.handler(args, ctx);
      return result;
    },
  };
}

/** What the SDK serialises for one tools/call answer. */
function wire(result: { text: string; structured?: Record<string, unknown> }): string {
  return JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    result: {
      content: [{ type: 'text', text: result.text }],
      ...(result.structured ? { structuredContent: result.structured } : {}),
      isError: false,
    },
  });
}

export async function runStructuredCostBench(rounds = 5, callsPerRound = 200): Promise<string[]> {
  const stack = await startTestStack(['team-a']);
  try {
    const table = Array.from({ length: 20 }, (_, i) => `- item ${i}: [link](doc-${i}.md)`).join('\n');
    for (let i = 0; i < 20; i++)
      await stack.seed('team-a', `/docs/doc-${i}.md`, `# Doc ${i}\n\n${table}\n`, {
        tags: 'bench,doc',
        title: `Doc ${i}`,
      });
    const ctx = () => toolContext(stack.gateway);
    const cases: Array<[string, ToolDefinition, Record<string, unknown>]> = [
      ['mark_fetch (whole document)', markFetch, { url: 'mark://team-a/docs/doc-1.md', force: true }],
      ['mark_lookup (20 rows)', markLookup, { url: 'mark://team-a/', query: 'bench', limit: 20 }],
      ['mark_versions', markVersions, { url: 'mark://team-a/docs/doc-1.md' }],
    ];
    const lines = [
      `structuredContent cost: broker-side CPU per call (handler + outputSchema check + JSON-RPC serialisation), world answers over real QUIC; ${rounds} interleaved rounds of ${callsPerRound} calls`,
    ];
    for (const [name, tool, args] of cases) {
      const plain = textOnly(tool);
      const cpu = { structured: 0, text: 0 };
      const bytes = { structured: 0, text: 0 };
      for (let round = 0; round < rounds; round++) {
        for (const [variant, definition] of [
          ['structured', tool],
          ['text', plain],
        ] as const) {
          const before = process.cpuUsage();
          for (let i = 0; i < callsPerRound; i++) {
            const { result } = await callTool(definition, args, ctx());
            bytes[variant] = Buffer.byteLength(wire(result));
          }
          const used = process.cpuUsage(before);
          cpu[variant] += (used.user + used.system) / 1000;
        }
      }
      const perCall = (ms: number) => ms / (rounds * callsPerRound);
      lines.push(
        `  ${name.padEnd(30)} text+structure ${perCall(cpu.structured).toFixed(3)} ms/call, ${bytes.structured} B; text only ${perCall(cpu.text).toFixed(3)} ms/call, ${bytes.text} B; ratio CPU ${(cpu.structured / cpu.text).toFixed(3)}, bytes ${(bytes.structured / bytes.text).toFixed(3)}`,
      );
    }
    lines.push('  (CPU includes the client side of each QUIC exchange, which runs in the same process)');
    return lines;
  } finally {
    await stack.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const samples = Number(process.argv[2] ?? 10);
  const pollMs = Number(process.argv[3] ?? 1000);
  console.log((await runFreshnessBench(samples, pollMs)).join('\n'));
  console.log((await runStructuredCostBench()).join('\n'));
}
