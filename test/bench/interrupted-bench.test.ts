/**
 * A benchmark stopped part way (Ctrl-C, or SIGTERM from `timeout` or a CI
 * runner) must not leave its scratch stores or its world processes behind.
 * Before bench/lib/scratch.ts, `node bench/fan-out.ts` interrupted with Ctrl-C
 * left /tmp/bench-fleet-* (every world's store), and sent SIGTERM it also left
 * its world processes running and listening, parented to init: Node ends a
 * process on these signals without running any `finally`. Both tests failed
 * then (the directory still existed; the world still answered signal 0).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { once } from 'node:events';
import { rm } from 'node:fs/promises';
import { eventually } from '../kubernetes/helpers.ts';

const worldFleet = new URL('../../bench/lib/world-fleet.ts', import.meta.url).href;
const worldFixture = new URL('../world/world-fixture.ts', import.meta.url).href;

/** Runs `source` as a module in a child Node and resolves with the child and the first line it prints. */
async function startHolder(source: string) {
  const child = spawn(process.execPath, ['--input-type=module', '-e', source], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const [chunk] = (await once(child.stdout, 'data')) as [Buffer];
  return { child, printed: JSON.parse(chunk.toString().split('\n')[0] ?? '{}') as { dir: string; worldPid?: number } };
}

/** Processes whose command line names `dir` (the world processes of a fleet under it), from /proc. */
function processesUsing(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(dir)) pids.push(Number(entry));
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return pids;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('a benchmark interrupted part way', () => {
  it('removes its scratch directory on SIGINT (Ctrl-C)', async () => {
    const { child, printed } = await startHolder(`
      import { fleetDirectory } from ${JSON.stringify(worldFleet)};
      import { testTls } from ${JSON.stringify(worldFixture)};
      const dir = await fleetDirectory(await testTls(), [1]);
      console.log(JSON.stringify({ dir }));
      setInterval(() => {}, 1000);
    `);
    try {
      assert.ok(existsSync(printed.dir), 'the fleet directory exists while the bench runs');
      const exited = once(child, 'exit');
      child.kill('SIGINT');
      await exited;
      assert.equal(existsSync(printed.dir), false, `${printed.dir} was left behind`);
    } finally {
      child.kill('SIGKILL');
      await rm(printed.dir, { recursive: true, force: true });
    }
  });

  it('stops its world processes and removes their stores on SIGTERM', async () => {
    const { child, printed } = await startHolder(`
      import { fleetDirectory, startFleet } from ${JSON.stringify(worldFleet)};
      import { testTls } from ${JSON.stringify(worldFixture)};
      const tls = await testTls();
      const dir = await fleetDirectory(tls, [1]);
      const fleet = await startFleet(dir, 1, tls);
      console.log(JSON.stringify({ dir, worldPid: fleet.worlds[0].child.pid }));
      setInterval(() => {}, 1000);
    `);
    const worldPid = printed.worldPid as number;
    try {
      assert.ok(isRunning(worldPid), 'the world process runs while the bench runs');
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      assert.equal(existsSync(printed.dir), false, `${printed.dir} was left behind`);
      await eventually(() => !isRunning(worldPid), `world process ${worldPid} to stop`);
    } finally {
      child.kill('SIGKILL');
      if (isRunning(worldPid)) process.kill(worldPid, 'SIGKILL');
      await rm(printed.dir, { recursive: true, force: true });
    }
  });

  it('stops the world processes still starting, and removes their stores, on SIGTERM', async () => {
    const { child, printed } = await startHolder(`
      import { fleetDirectory, startFleet } from ${JSON.stringify(worldFleet)};
      import { testTls } from ${JSON.stringify(worldFixture)};
      const tls = await testTls();
      const dir = await fleetDirectory(tls, [3]);
      console.log(JSON.stringify({ dir }));
      await startFleet(dir, 3, tls);
      setInterval(() => {}, 1000);
    `);
    try {
      await eventually(() => processesUsing(printed.dir).length > 0, 'a world process to start');
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
      assert.equal(existsSync(printed.dir), false, `${printed.dir} was left behind`);
      await eventually(
        () => processesUsing(printed.dir).length === 0,
        `the world processes under ${printed.dir} to stop`,
      );
    } finally {
      child.kill('SIGKILL');
      for (const pid of processesUsing(printed.dir)) process.kill(pid, 'SIGKILL');
      await rm(printed.dir, { recursive: true, force: true });
    }
  });
});
