/**
 * Throughput of one broker process: N concurrent MCP clients (each its own
 * subject and session, in a separate client process) call `mark_fetch` on a small
 * document for a fixed time, for each N. Beside it, at the same concurrency and
 * from the same kind of client process:
 *   (a) the same FETCH sent straight to the world over QUIC (no broker);
 *   (b) a minimal MCP server on the same stack (SDK server and Streamable HTTP
 *       transport, JSON responses, sessions) whose one tool returns a constant:
 *       the floor of an MCP tool call here (bench/lib/minimal-mcp-server.ts).
 * The world runs in its own process, so this process's CPU time and memory are
 * the broker's (or, for (b), the floor server's). Steps run one after another;
 * the machine's load average is printed with each.
 *
 *   node bench/load.ts [seconds per step] [client counts, e.g. 1,4,16,64]
 *
 * `node bench/load.ts --against <tree> [seconds per step] [client counts] [rounds]`
 * measures instead this checkout's broker beside another checkout's (with its
 * own node_modules), both in this process and in front of the same world
 * process, in alternated steps: calls/s and broker CPU per call for each, and
 * the candidate / baseline ratios.
 */
import { spawn } from 'node:child_process';
import { copyFile, mkdir, readFile, writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';
import { loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { percentile } from './lib/measure.ts';
import { constantTool, startMinimalMcpServer } from './lib/minimal-mcp-server.ts';
import { removeScratchDirectory } from './lib/scratch.ts';
import { fleetDirectory, startFleet, stopFleet } from './lib/world-fleet.ts';
import { MarkClient } from '../src/transport/mark-client.ts';
import { testTls } from '../test/world/world-fixture.ts';

/** What a client process is told to do (argv[3], JSON). */
export interface LoadPlan {
  kind: 'mcp' | 'fetch';
  clients: number;
  seconds: number;
  /** mcp: the endpoint, one bearer per client (or none), the tool and its arguments. */
  url?: string;
  bearers?: string[];
  tool?: string;
  args?: Record<string, unknown>;
  /** fetch: the world's port, CA and path. */
  port?: number;
  ca?: string;
  path?: string;
}

export interface LoadResult {
  /** The client process's own CPU time. */
  clientCpuMs: number;
  calls: number;
  errors: number;
  seconds: number;
  p50Ms: number;
  p99Ms: number;
}

interface StepFigures extends LoadResult {
  serverCpuMs: number;
  worldCpuMs: number;
  serverRssMiB: number;
  load: number;
}

const documentPath = '/notes/n0.md';

/** Client process: runs the plan's loops until time is up, prints one JSON line. */
async function runClients(plan: LoadPlan): Promise<void> {
  const latencies: number[] = [];
  let errors = 0;
  let call: (index: number) => Promise<void>;
  let close: () => Promise<void>;
  if (plan.kind === 'mcp') {
    const clients = await Promise.all(
      Array.from({ length: plan.clients }, async (_, i) => {
        const client = new Client({ name: 'load', version: '1.0.0' });
        const bearer = plan.bearers?.[i];
        const headers: Record<string, string> = bearer === undefined ? {} : { Authorization: `Bearer ${bearer}` };
        await client.connect(new StreamableHTTPClientTransport(new URL(plan.url ?? ''), { requestInit: { headers } }));
        return client;
      }),
    );
    call = async (i) => {
      const result = (await clients[i]?.callTool({ name: plan.tool ?? '', arguments: plan.args ?? {} })) as
        | { isError?: boolean }
        | undefined;
      if (result?.isError) throw new Error('tool error');
    };
    close = async () => {
      await Promise.all(clients.map((client) => client.close()));
    };
  } else {
    const mark = new MarkClient({ ca: plan.ca ?? '', maxConcurrentStreams: 8 });
    const authority = { host: 'localhost', port: plan.port ?? 0, dialHost: '127.0.0.1' };
    call = async () => {
      const response = await mark.call(authority, { verb: 'FETCH', path: plan.path ?? '/' });
      if (response.status !== 'ok') throw new Error(response.status);
    };
    close = () => mark.close();
  }
  for (let i = 0; i < plan.clients; i++) await call(i).catch(() => undefined);
  const cpuBefore = process.cpuUsage();
  const started = performance.now();
  const deadline = started + plan.seconds * 1000;
  await Promise.all(
    Array.from({ length: plan.clients }, async (_, i) => {
      while (performance.now() < deadline) {
        const begun = performance.now();
        try {
          await call(i);
          latencies.push(performance.now() - begun);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  await close();
  latencies.sort((a, b) => a - b);
  const result: LoadResult = {
    clientCpuMs: (cpu.user + cpu.system) / 1000,
    calls: latencies.length,
    errors,
    seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

/** Runs `plan` in a client process of its own and returns what it measured. */
export async function runClientProcess(plan: LoadPlan): Promise<LoadResult> {
  const child = spawn(process.execPath, [fileURLToPath(import.meta.url), '--clients', JSON.stringify(plan)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) throw new Error(`client process exited with ${code}`);
  return JSON.parse(output.trim().split('\n').pop() ?? '{}') as LoadResult;
}

/** CPU time a process has used so far, from /proc (Linux); 0 where it cannot be read. */
async function processCpuMs(pid: number | undefined): Promise<number> {
  if (pid === undefined) return 0;
  try {
    const fields = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of stat(5); after the name they are the 12th and 13th.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100;
  } catch {
    return 0;
  }
}

/**
 * Runs one client process and measures this process (the server side) and the
 * world process while it runs; with `profileTo`, also writes this process's CPU
 * profile of the step there (BENCH_LOAD_PROFILE=<path prefix> turns that on).
 */
async function step(plan: LoadPlan, worldPid: number | undefined, profileTo?: string): Promise<StepFigures> {
  const session = profileTo === undefined ? undefined : new Session();
  if (session !== undefined) {
    session.connect();
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  const worldBefore = await processCpuMs(worldPid);
  const cpuBefore = process.cpuUsage();
  let rss = 0;
  const sampler = setInterval(() => {
    rss = Math.max(rss, process.memoryUsage().rss);
  }, 100);
  const result = await runClientProcess(plan).finally(() => clearInterval(sampler));
  const cpu = process.cpuUsage(cpuBefore);
  const worldCpuMs = (await processCpuMs(worldPid)) - worldBefore;
  if (session !== undefined && profileTo !== undefined) {
    const { profile } = await session.post('Profiler.stop');
    await writeFile(profileTo, JSON.stringify(profile));
    session.disconnect();
  }
  return {
    ...result,
    serverCpuMs: (cpu.user + cpu.system) / 1000,
    worldCpuMs,
    serverRssMiB: rss / 1_048_576,
    load: loadavg()[0] ?? 0,
  };
}

function line(name: string, figures: StepFigures): string {
  const rate = figures.calls / figures.seconds;
  const cpuShare = figures.serverCpuMs / 1000 / figures.seconds;
  const perCall = (ms: number) => (ms / Math.max(1, figures.calls)).toFixed(3);
  return `${name.padEnd(34)} ${rate.toFixed(0).padStart(6)} calls/s   p50 ${figures.p50Ms.toFixed(2)} ms   p99 ${figures.p99Ms.toFixed(2)} ms   errors ${figures.errors}   server ${(cpuShare * 100).toFixed(0)}% of a core, ${perCall(figures.serverCpuMs)} ms CPU per call (world ${perCall(figures.worldCpuMs)}, clients ${perCall(figures.clientCpuMs)}), peak RSS ${figures.serverRssMiB.toFixed(0)} MiB   load ${figures.load.toFixed(1)}`;
}

export async function runLoadBench(seconds = 5, counts = [1, 4, 16, 64]): Promise<string[]> {
  const tls = await testTls();
  const dir = await fleetDirectory(tls, [1]);
  const fleet = await startFleet(dir, 1, tls);
  const floor = await startMinimalMcpServer();
  const world = fleet.worlds[0];
  if (world === undefined) throw new Error('no world started');
  const lines = [`load: ${seconds} s per step, one broker process, world in its own process`];
  const profileTo = process.env.BENCH_LOAD_PROFILE;
  const worldPid = world.child.pid;
  try {
    for (const clients of counts) {
      const bearers = await Promise.all(
        Array.from({ length: clients }, (_, i) => fleet.front.token(`load${i}@example.com`)),
      );
      const broker = await step(
        {
          kind: 'mcp',
          clients,
          seconds,
          url: fleet.front.mcpUrl.href,
          bearers,
          tool: 'mark_fetch',
          args: { url: `mark://w0${documentPath}`, force: true },
        },
        worldPid,
        profileTo === undefined ? undefined : `${profileTo}.broker-${clients}.cpuprofile`,
      );
      const direct = await step(
        { kind: 'fetch', clients, seconds, port: world.port, ca: tls.cert, path: documentPath },
        worldPid,
      );
      const constant = await step(
        { kind: 'mcp', clients, seconds, url: floor.url, tool: constantTool, args: {} },
        worldPid,
        profileTo === undefined ? undefined : `${profileTo}.floor-${clients}.cpuprofile`,
      );
      const ratio = (a: StepFigures, b: StepFigures) => (a.calls / a.seconds / (b.calls / b.seconds)).toFixed(3);
      lines.push(
        `${clients} concurrent client(s)`,
        `  ${line('mark_fetch through the broker', broker)}`,
        `  ${line('(a) FETCH straight to the world', direct)}`,
        `  ${line('(b) constant tool, minimal server', constant)}`,
        `  broker calls/s vs (a) ${ratio(broker, direct)}, vs (b) ${ratio(broker, constant)}`,
      );
    }
  } finally {
    await floor.close();
    await stopFleet(fleet);
    await removeScratchDirectory(dir);
  }
  return lines;
}

/** A broker's figures summed over its alternated steps at one concurrency. */
type Tally = { calls: number; seconds: number; serverCpuMs: number; p50s: number[] };

/**
 * This checkout's broker against another checkout's, same world process, same
 * client process kind, alternated steps (`rounds` of each per concurrency).
 */
export async function runLoadAgainst(
  baselineRoot: string,
  seconds = 4,
  counts = [1, 4, 16, 64],
  rounds = 2,
): Promise<string[]> {
  const tls = await testTls();
  const dir = await fleetDirectory(tls, [1]);
  const fleet = await startFleet(dir, 1, tls);
  const world = fleet.worlds[0];
  if (world === undefined) throw new Error('no world started');
  const fixture = (await import(
    pathToFileURL(resolve(baselineRoot, 'test/e2e/stack-fixture.ts')).href
  )) as typeof import('../test/e2e/stack-fixture.ts');
  const baseDir = join(dir, 'baseline-front');
  await mkdir(baseDir, { recursive: true });
  await copyFile(join(dir, 'ca.pem'), join(baseDir, 'ca.pem'));
  const baseline = await fixture.startBrokerFront(
    baseDir,
    [{ name: 'w0', port: world.port, tokensFile: join(dir, 'fleet-1', 'w0.toml') }],
    { brokerConfig: { rateLimit: { disabled: true } } },
  );
  const fronts = [
    { label: `baseline ${baselineRoot}`, front: baseline },
    { label: 'candidate (this checkout)', front: fleet.front },
  ];
  const lines = [`load --against: ${seconds} s per step, ${rounds} alternated step(s) per broker and concurrency`];
  try {
    for (const clients of counts) {
      const tallies = fronts.map((): Tally => ({ calls: 0, seconds: 0, serverCpuMs: 0, p50s: [] }));
      const bearers = await Promise.all(
        fronts.map(({ front }) =>
          Promise.all(Array.from({ length: clients }, (_, i) => front.token(`load${i}@example.com`))),
        ),
      );
      for (let round = 0; round < rounds; round++) {
        const order = round % 2 === 0 ? [0, 1] : [1, 0];
        for (const index of order) {
          const figures = await step(
            {
              kind: 'mcp',
              clients,
              seconds,
              url: fronts[index]!.front.mcpUrl.href,
              bearers: bearers[index]!,
              tool: 'mark_fetch',
              args: { url: `mark://w0${documentPath}`, force: true },
            },
            world.child.pid,
          );
          const tally = tallies[index]!;
          tally.calls += figures.calls;
          tally.seconds += figures.seconds;
          tally.serverCpuMs += figures.serverCpuMs;
          tally.p50s.push(figures.p50Ms);
        }
      }
      const rate = (t: Tally) => t.calls / t.seconds;
      const cpuPerCall = (t: Tally) => t.serverCpuMs / Math.max(1, t.calls);
      lines.push(`${clients} concurrent client(s), load ${(loadavg()[0] ?? 0).toFixed(1)}`);
      for (const [i, { label }] of fronts.entries()) {
        const t = tallies[i]!;
        lines.push(
          `  ${label.padEnd(40)} ${rate(t).toFixed(0).padStart(6)} calls/s   step p50s ${t.p50s.map((v) => v.toFixed(2)).join(' / ')} ms   broker ${cpuPerCall(t).toFixed(3)} ms CPU per call`,
        );
      }
      const [base, cand] = tallies as [Tally, Tally];
      lines.push(
        `  candidate / baseline: calls/s ${(rate(cand) / rate(base)).toFixed(3)}, CPU per call ${(cpuPerCall(cand) / cpuPerCall(base)).toFixed(3)}`,
      );
    }
  } finally {
    await baseline.close();
    await stopFleet(fleet);
    await removeScratchDirectory(dir);
  }
  return lines;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  if (process.argv[2] === '--clients') {
    await runClients(JSON.parse(process.argv[3] ?? '{}') as LoadPlan);
    process.exit(0);
  }
  if (process.argv[2] === '--against') {
    const [tree, seconds, counts, rounds] = process.argv.slice(3);
    if (tree === undefined) throw new Error('--against needs the path of a baseline checkout');
    const lines = await runLoadAgainst(
      tree,
      Number(seconds ?? 4),
      counts ? counts.split(',').map(Number) : undefined,
      Number(rounds ?? 2),
    );
    console.log(lines.join('\n'));
    process.exit(0);
  }
  const counts = process.argv[3] ? process.argv[3].split(',').map(Number) : undefined;
  console.log((await runLoadBench(Number(process.argv[2] ?? 5), counts)).join('\n'));
}
