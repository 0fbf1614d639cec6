/**
 * Fairness: one subject floods batched `mark_search` while another subject's
 * `mark_fetch` latency is measured, against the same subject's idle latency
 * measured in the same run. Rounds alternate idle and flood phases, so machine
 * load affects both. Real QUIC worlds, the real broker, the MCP SDK client for
 * the victim and raw HTTP batches for the flood (test/security/fairness.test.ts
 * asserts the behaviour; this reports the figures).
 *
 * Run: `node bench/fairness.ts [rounds] [fetchesPerPhase]` (default 4 × 40):
 * first with the per-subject bound on calls in flight raised out of reach
 * (what the broker did before it had one), then with the default bound.
 */
import { fileURLToPath } from 'node:url';
import { isError, resultText, startStack } from '../test/e2e/stack-fixture.ts';
import { jsonRpcHeaders, rawRequest } from '../test/broker/http/raw-http.ts';
import { floodBatch } from '../test/security/flood-batch.ts';
import { percentile, ratio } from './lib/measure.ts';

export type FairnessResult = {
  idle: { p50Ms: number; p99Ms: number; fetches: number };
  flooded: { p50Ms: number; p99Ms: number; fetches: number };
  failures: number;
  floodCallsPerSecond: number;
  circuit: string;
};

/** `callsPerSubject`: the broker's per-subject bound on tool calls in flight (server.mcp.callsPerSubject). */
export async function runFairnessBench(rounds = 4, perPhase = 40, callsPerSubject?: number): Promise<FairnessResult> {
  const stack = await startStack({
    worlds: ['root', 'team-a'],
    brokerConfig: {
      rateLimit: { disabled: true },
      ...(callsPerSubject === undefined ? {} : { mcpExtra: { callsPerSubject, queuedCallsPerSubject: 1000 } }),
    },
  });
  try {
    const alice = await stack.connect();
    for (let i = 0; i < 20; i += 1)
      await alice.callTool({
        name: 'mark_publish',
        arguments: {
          url: `mark://team-a/notes/n${i}.md`,
          body: `# Note ${i}\n\nflood notes ${i}\n`,
          expected_version: 0,
        },
      });
    const floodToken = await stack.token('flooder@example.com');
    const victim = await stack.connect(await stack.token('victim@example.com'));
    const idle: number[] = [];
    const flooded: number[] = [];
    let failures = 0;
    let floodCalls = 0;
    let floodMs = 0;
    const fetchPhase = async (into: number[]) => {
      for (let i = 0; i < perPhase; i += 1) {
        const begun = performance.now();
        const answer = await victim.callTool({
          name: 'mark_fetch',
          arguments: { url: `mark://team-a/notes/n${i % 20}.md`, force: true },
        });
        into.push(performance.now() - begun);
        if (isError(answer) || !/Note/.test(resultText(answer))) failures += 1;
      }
    };
    await fetchPhase([]); // warm-up
    for (let round = 0; round < rounds; round += 1) {
      await fetchPhase(idle);
      let flooding = true;
      const started = performance.now();
      const flood = (async () => {
        let id = 1;
        while (flooding) {
          await Promise.all(
            Array.from({ length: 6 }, (_, wave) =>
              rawRequest(stack.mcpUrl.href, {
                method: 'POST',
                headers: { ...jsonRpcHeaders(floodToken), 'mcp-protocol-version': '2025-11-25' },
                body: JSON.stringify(floodBatch(20, id + wave * 20)),
              }),
            ),
          );
          id += 120;
          floodCalls += 120;
        }
      })();
      // Let the flood reach the world before measuring.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await fetchPhase(flooded);
      flooding = false;
      await flood;
      floodMs += performance.now() - started;
    }
    const summary = (values: number[]) => {
      const sorted = [...values].sort((a, b) => a - b);
      return { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), fetches: sorted.length };
    };
    return {
      idle: summary(idle),
      flooded: summary(flooded),
      failures,
      floodCallsPerSecond: floodCalls / (floodMs / 1000),
      circuit: stack.broker.gateway.circuitState('team-a') ?? 'unknown',
    };
  } finally {
    await stack.close();
  }
}

export function formatFairness(result: FairnessResult): string {
  const { idle, flooded } = result;
  return [
    `victim mark_fetch idle      p50 ${idle.p50Ms.toFixed(2)} ms   p99 ${idle.p99Ms.toFixed(2)} ms   (${idle.fetches} calls)`,
    `victim mark_fetch flooded   p50 ${flooded.p50Ms.toFixed(2)} ms   p99 ${flooded.p99Ms.toFixed(2)} ms   (${flooded.fetches} calls)`,
    `ratio flooded/idle          p50 ${ratio(flooded.p50Ms, idle.p50Ms)}   p99 ${ratio(flooded.p99Ms, idle.p99Ms)}`,
    `flood ${result.floodCallsPerSecond.toFixed(0)} mark_search calls/s   victim failures ${result.failures}   team-a circuit ${result.circuit}`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const rounds = Number(process.argv[2] ?? 4);
  const perPhase = Number(process.argv[3] ?? 40);
  console.log('without a per-subject bound on calls in flight (callsPerSubject 1000):');
  console.log(formatFairness(await runFairnessBench(rounds, perPhase, 1000)));
  console.log('with the default bound (server.mcp.callsPerSubject 4):');
  console.log(formatFairness(await runFairnessBench(rounds, perPhase)));
}
