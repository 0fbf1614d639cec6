/**
 * The replicated broker, each figure beside its baseline from the same run,
 * the two measured in alternating rounds so the machine's load hits both:
 *  - tool calls/s through haproxy at 16 concurrent MCP clients (stateful
 *    sessions, shared rate limits, both on Redis): two broker processes vs
 *    the same haproxy in front of one of them;
 *  - the latency of a rate-limit check: Redis buckets (one script) vs this
 *    process's buckets;
 *  - the latency of a sign-in step (`POST /device/authorize`, which writes
 *    two entries): a broker on Redis vs a broker on memory.
 * Run: `node bench/replicas.ts [calls-per-round] [rounds]` (default 800, 4).
 */
import { fileURLToPath } from 'node:url';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { Redis } from 'ioredis';
import { SharedTokenBuckets } from '../src/broker/http/rate-limit/shared-token-buckets.ts';
import { TokenBuckets } from '../src/concurrency/token-buckets.ts';
import { guidePath, missingBinaries, startReplicaStack, type ReplicaStack } from '../test/e2e/replica-fixture.ts';
import { startSignInStack, type SignInStack } from '../test/e2e/signin-fixture.ts';
import { percentile, ratio } from './lib/measure.ts';

const concurrency = 16;

type Samples = { name: string; latencies: number[]; seconds: number; operations: number };

const samples = (name: string): Samples => ({ name, latencies: [], seconds: 0, operations: 0 });

function summary(s: Samples): { perSecond: number; p50: number; p99: number } {
  const sorted = [...s.latencies].sort((a, b) => a - b);
  return { perSecond: s.operations / s.seconds, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99) };
}

function line(s: Samples): string {
  const { perSecond, p50, p99 } = summary(s);
  return `${s.name.padEnd(52)} ${perSecond.toFixed(0).padStart(7)}/s   p50 ${p50.toFixed(3)} ms   p99 ${p99.toFixed(3)} ms`;
}

/** Runs `operation` `count` times from `workers` concurrent loops, adding to `into`. */
async function runRound(
  into: Samples,
  count: number,
  workers: number,
  operation: (worker: number) => Promise<unknown>,
) {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: workers }, async (_, worker) => {
      while (next < count) {
        next += 1;
        const begun = performance.now();
        await operation(worker);
        into.latencies.push(performance.now() - begun);
      }
    }),
  );
  into.seconds += (performance.now() - started) / 1000;
  into.operations += count;
}

async function connectClients(stack: ReplicaStack, resource: string, label: string): Promise<Client[]> {
  const clients: Client[] = [];
  for (let i = 0; i < concurrency; i++) {
    const client = new Client({ name: `bench-${label}-${i}`, version: '1' });
    const token = await stack.token(`bench-${label}-${i}@example.com`);
    await client.connect(
      new StreamableHTTPClientTransport(new URL(resource), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    clients.push(client);
  }
  return clients;
}

type ToolCall = { label: string; name: string; arguments: Record<string, unknown> };

/** A call that stays in the broker (mark_worlds), and one that reaches the world over QUIC (mark_fetch). */
export const throughputCalls: ToolCall[] = [
  { label: 'mark_worlds (broker only)', name: 'mark_worlds', arguments: {} },
  {
    label: 'mark_fetch force (broker + world)',
    name: 'mark_fetch',
    arguments: { url: `mark://root${guidePath}`, force: true },
  },
];

export async function runReplicaThroughputBench(stack: ReplicaStack, calls: number, rounds: number): Promise<string[]> {
  const one = await connectClients(stack, stack.oneReplicaResource!, 'one');
  const two = await connectClients(stack, stack.resource, 'two');
  const lines: string[] = [];
  for (const tool of throughputCalls) {
    const call = (clients: Client[]) => (worker: number) =>
      clients[worker]!.callTool({ name: tool.name, arguments: tool.arguments });
    // Warm both paths (connections to the world, scripts loaded in Redis, JIT).
    await runRound(samples('warm-up'), 100, concurrency, call(one));
    await runRound(samples('warm-up'), 100, concurrency, call(two));
    const oneReplica = samples(`${tool.label}, 1 replica (baseline)`);
    const twoReplicas = samples(`${tool.label}, 2 replicas`);
    for (let round = 0; round < rounds; round++) {
      await runRound(oneReplica, calls, concurrency, call(one));
      await runRound(twoReplicas, calls, concurrency, call(two));
    }
    lines.push(
      line(oneReplica),
      line(twoReplicas),
      `  ratio calls/s 2 vs 1 replica: ${ratio(summary(twoReplicas).perSecond, summary(oneReplica).perSecond)}`,
    );
  }
  for (const client of [...one, ...two]) await client.close();
  return [
    `Tool calls through haproxy, ${concurrency} concurrent MCP sessions, ${rounds} x ${calls} calls each, alternating`,
    ...lines,
  ];
}

export async function runRateLimitCheckBench(redisUrl: string, checks: number, rounds: number): Promise<string[]> {
  const url = new URL(redisUrl);
  const client = new Redis({
    host: url.hostname,
    port: Number(url.port),
    enableOfflineQueue: false,
    lazyConnect: true,
  });
  await client.connect();
  const settings = { perMinute: 60_000_000, burst: 1_000_000 };
  const local = new TokenBuckets(settings);
  const shared = new SharedTokenBuckets({ ...settings, client, keyPrefix: 'bench:rl:' });
  await shared.take('warm-up');
  const memory = samples('rate-limit check, per-process buckets (baseline)');
  const redis = samples('rate-limit check, Redis buckets');
  for (let round = 0; round < rounds; round++) {
    await runRound(memory, checks, 1, async () => local.take(`subject-${round}`));
    await runRound(redis, checks, 1, () => shared.take(`subject-${round}`));
  }
  client.disconnect();
  const added = summary(redis).p50 - summary(memory).p50;
  return [
    `Rate-limit check, ${rounds} x ${checks} sequential checks each, alternating`,
    line(memory),
    line(redis),
    `  Redis adds ${added.toFixed(3)} ms at p50 per check; ratio checks/s ${ratio(summary(redis).perSecond, summary(memory).perSecond)}`,
  ];
}

export async function runSignInStepBench(redisUrl: string, steps: number, rounds: number): Promise<string[]> {
  const onMemory = await startSignInStack();
  let onRedis: SignInStack | undefined;
  try {
    onRedis = await startSignInStack({
      brokerConfig: (document) => {
        document.state = { ephemeral: 'redis' };
        document.redis = { url: redisUrl, keyPrefix: 'bench:signin:' };
      },
    });
    const step = (stack: SignInStack) => async () => {
      const { status } = await stack.post('/device/authorize', {
        client_id: 'demarkus-cli',
        scope: 'openid mark.read',
      });
      if (status !== 200) throw new Error(`device authorization answered ${status}`);
    };
    await runRound(samples('warm-up'), 20, 1, step(onMemory));
    await runRound(samples('warm-up'), 20, 1, step(onRedis));
    const memory = samples('POST /device/authorize, memory store (baseline)');
    const redis = samples('POST /device/authorize, Redis store');
    for (let round = 0; round < rounds; round++) {
      await runRound(memory, steps, 1, step(onMemory));
      await runRound(redis, steps, 1, step(onRedis));
    }
    const added = summary(redis).p50 - summary(memory).p50;
    return [
      `Sign-in step, ${rounds} x ${steps} sequential device authorizations each, alternating`,
      line(memory),
      line(redis),
      `  Redis adds ${added.toFixed(3)} ms at p50 per step; ratio steps/s ${ratio(summary(redis).perSecond, summary(memory).perSecond)}`,
    ];
  } finally {
    await onRedis?.close();
    await onMemory.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const missing = missingBinaries();
  if (missing !== null) {
    console.error(`bench/replicas.ts ${missing}`);
    process.exit(1);
  }
  const calls = Number(process.argv[2] ?? 800);
  const rounds = Number(process.argv[3] ?? 4);
  const stack = await startReplicaStack({
    oneReplicaFrontend: true,
    brokerConfig: (document) => {
      // Limits stay on (every call pays its shared check) but never refuse.
      document.rateLimit.tokens = { perMinute: 60_000_000, burst: 1_000_000 };
    },
  });
  try {
    console.log((await runReplicaThroughputBench(stack, calls, rounds)).join('\n'));
    console.log();
    console.log((await runRateLimitCheckBench(stack.redis.url, 1000, rounds)).join('\n'));
    console.log();
    console.log((await runSignInStepBench(stack.redis.url, 200, rounds)).join('\n'));
  } finally {
    await stack.close();
  }
}
