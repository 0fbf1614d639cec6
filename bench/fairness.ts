/**
 * Fairness: one subject floods batched `mark_search` while another subject's
 * `mark_fetch` latency is measured, against the same subject's idle latency in
 * the same run. Laid out as a deployment is: each world in its own process, the
 * broker in this process, and the victim and the flooder each in a client
 * process of their own, so the figures are the broker's and the worlds'
 * behaviour rather than this process's event loop running everything.
 * Rounds alternate an idle phase and a flooded phase; each figure is the median
 * over rounds of that round's flooded/idle ratio, so a load swing on the machine
 * moves both sides of a ratio together. test/security/fairness.test.ts asserts
 * the behaviour (no victim failure, circuit closed); this reports the figures.
 *
 *   node bench/fairness.ts [rounds] [seconds per phase]   (default 5 × 4)
 *
 * It runs three times: with the per-subject bound on calls in flight raised
 * out of reach (what the broker did before it had one), with a fixed bound of
 * 4 (server.mcp.callsPerSubject alone, what it did next), then with the
 * defaults (4 alone, 1 while another subject is active:
 * server.mcp.callsPerSubjectShared).
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { jsonRpcHeaders, rawRequest } from '../test/broker/http/raw-http.ts';
import { floodBatch } from '../test/security/flood-batch.ts';
import { testTls } from '../test/world/world-fixture.ts';
import { type LoadResult, runClientProcess } from './load.ts';
import { median, ratio } from './lib/measure.ts';
import { fleetDirectory, startFleet, stopFleet } from './lib/world-fleet.ts';
import { removeScratchDirectory } from './lib/scratch.ts';

/** What the flood process is told (argv[3], JSON). */
interface FloodPlan {
  url: string;
  bearer: string;
  /** Batches sent at once, and calls per batch: the shape of the attack in docs/security.md. */
  waves: number;
  batch: number;
}

export interface FairnessRound {
  idle: LoadResult;
  flooded: LoadResult;
}

export interface FairnessResult {
  rounds: FairnessRound[];
  floodCalls: number;
  floodSeconds: number;
  circuits: string[];
  load: number;
}

/** Flood process: sends `waves` batches at once, again and again, until it is killed; counts answered calls. */
async function flood(plan: FloodPlan): Promise<void> {
  let id = 1;
  let calls = 0;
  const started = performance.now();
  const report = () => {
    process.stdout.write(`${JSON.stringify({ calls, seconds: (performance.now() - started) / 1000 })}\n`);
    process.exit(0);
  };
  process.on('SIGTERM', report);
  for (;;) {
    await Promise.all(
      Array.from({ length: plan.waves }, (_, wave) =>
        rawRequest(plan.url, {
          method: 'POST',
          headers: { ...jsonRpcHeaders(plan.bearer), 'mcp-protocol-version': '2025-11-25' },
          body: JSON.stringify(floodBatch(plan.batch, id + wave * plan.batch)),
        }).then(
          () => {
            calls += plan.batch;
          },
          () => undefined,
        ),
      ),
    );
    id += plan.waves * plan.batch;
  }
}

function startFlood(plan: FloodPlan): { stop: () => Promise<{ calls: number; seconds: number }> } {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--flood', JSON.stringify(plan)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  return {
    async stop() {
      child.kill('SIGTERM');
      await exited;
      return JSON.parse(output.trim().split('\n').pop() ?? '{"calls":0,"seconds":0}') as {
        calls: number;
        seconds: number;
      };
    },
  };
}

/** The broker's per-subject bounds on tool calls in flight (server.mcp); the config defaults when absent. */
export type SubjectBounds = { callsPerSubject: number; callsPerSubjectShared: number };

export async function runFairnessBench(rounds = 5, seconds = 4, bounds?: SubjectBounds): Promise<FairnessResult> {
  const tls = await testTls();
  const dir = await fleetDirectory(tls, [2]);
  const mcpExtra = bounds === undefined ? {} : { mcpExtra: { ...bounds, queuedCallsPerSubject: 1000 } };
  const fleet = await startFleet(dir, 2, tls, mcpExtra);
  try {
    const url = fleet.front.mcpUrl.href;
    const victim = {
      kind: 'mcp' as const,
      clients: 1,
      seconds,
      url,
      bearers: [await fleet.front.token('victim@example.com')],
      tool: 'mark_fetch',
      args: { url: 'mark://w0/notes/n0.md', force: true },
    };
    const floodPlan: FloodPlan = { url, bearer: await fleet.front.token('flooder@example.com'), waves: 6, batch: 20 };
    const result: FairnessResult = { rounds: [], floodCalls: 0, floodSeconds: 0, circuits: [], load: 0 };
    for (let round = 0; round < rounds; round += 1) {
      const idle = await runClientProcess(victim);
      const flooding = startFlood(floodPlan);
      // Let the flood reach the worlds before the victim starts measuring.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const flooded = await runClientProcess(victim);
      const sent = await flooding.stop();
      result.rounds.push({ idle, flooded });
      result.floodCalls += sent.calls;
      result.floodSeconds += sent.seconds;
    }
    result.circuits = ['w0', 'w1'].map((w) => `${w} ${fleet.front.broker.gateway.circuitState(w) ?? 'unknown'}`);
    result.load = loadavg()[0] ?? 0;
    return result;
  } finally {
    await stopFleet(fleet);
    await removeScratchDirectory(dir);
  }
}

export function formatFairness(result: FairnessResult): string {
  const medianOf = (pick: (r: FairnessRound) => number) => median(result.rounds.map(pick));
  const failures = result.rounds.reduce((sum, r) => sum + r.idle.errors + r.flooded.errors, 0);
  const calls = (pick: (r: FairnessRound) => LoadResult) => result.rounds.reduce((sum, r) => sum + pick(r).calls, 0);
  return [
    `victim mark_fetch idle      p50 ${medianOf((r) => r.idle.p50Ms).toFixed(2)} ms   p99 ${medianOf((r) => r.idle.p99Ms).toFixed(2)} ms   (${calls((r) => r.idle)} calls, medians over ${result.rounds.length} rounds)`,
    `victim mark_fetch flooded   p50 ${medianOf((r) => r.flooded.p50Ms).toFixed(2)} ms   p99 ${medianOf((r) => r.flooded.p99Ms).toFixed(2)} ms   (${calls((r) => r.flooded)} calls)`,
    `ratio flooded/idle          p50 ×${medianOf((r) => r.flooded.p50Ms / r.idle.p50Ms).toFixed(2)}   p99 ×${medianOf((r) => r.flooded.p99Ms / r.idle.p99Ms).toFixed(2)}   (per round p99: ${result.rounds.map((r) => ratio(r.flooded.p99Ms, r.idle.p99Ms)).join(', ')})`,
    `flood ${(result.floodCalls / Math.max(1e-9, result.floodSeconds)).toFixed(0)} mark_search calls/s answered   victim failures ${failures}   circuits: ${result.circuits.join(', ')}   load ${result.load.toFixed(1)}`,
  ].join('\n');
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--flood') {
    await flood(JSON.parse(process.argv[3] ?? '{}') as FloodPlan);
  } else {
    const rounds = Number(process.argv[2] ?? 5);
    const seconds = Number(process.argv[3] ?? 4);
    console.log('without a per-subject bound on calls in flight (callsPerSubject 1000):');
    console.log(
      formatFairness(await runFairnessBench(rounds, seconds, { callsPerSubject: 1000, callsPerSubjectShared: 1000 })),
    );
    console.log('with a fixed bound (callsPerSubject 4, also while another subject is active):');
    console.log(
      formatFairness(await runFairnessBench(rounds, seconds, { callsPerSubject: 4, callsPerSubjectShared: 4 })),
    );
    console.log('with the defaults (callsPerSubject 4, callsPerSubjectShared 1):');
    console.log(formatFairness(await runFairnessBench(rounds, seconds)));
  }
}
