/**
 * What a benchmark leaves on the machine if it is stopped part way: its scratch
 * directories (a store of 100,000 documents for the start-up bench, generated
 * worlds in memory-backed /dev/shm for the graph bench) and the world processes
 * it started (test/cli/cli-process.ts starts them with stdin ignored, so they
 * outlive this process and keep their ports). Node ends a process at once on
 * SIGINT (Ctrl-C) and SIGTERM without running any `finally`, so each directory
 * made here and each child registered here is removed or stopped synchronously
 * on the way out. The signal handlers are installed while something is
 * registered and removed when nothing is, so between benches (and in
 * bench/run-all.ts while a child bench runs) Ctrl-C keeps Node's default.
 */
import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const directories = new Set<string>();
const children = new Set<ChildProcess>();

/** Exit codes a shell reports for a process ended by the signal: 128 + its number. */
const exitCodeOf = { SIGINT: 130, SIGTERM: 143 } as const;
const onSignal = {
  SIGINT: () => process.exit(exitCodeOf.SIGINT),
  SIGTERM: () => process.exit(exitCodeOf.SIGTERM),
};

/**
 * SIGKILL: a world told to stop gracefully would go on writing into the store being
 * removed. A child can still be writing until the kernel has ended it, so removal
 * retries on ENOTEMPTY, and one directory that cannot go does not keep the rest.
 */
function cleanUpNow(): void {
  for (const child of children) child.kill('SIGKILL');
  for (const dir of directories) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 10, retryDelay: 20 });
    } catch (error) {
      console.error(
        `could not remove the bench's scratch directory ${dir}: ${(error as Error).message}; remove it by hand`,
      );
    }
  }
}

function watchSignals(): void {
  const registered = directories.size + children.size;
  const installed = process.listeners('exit').includes(cleanUpNow);
  if (registered > 0 && !installed) {
    process.on('exit', cleanUpNow);
    process.on('SIGINT', onSignal.SIGINT);
    process.on('SIGTERM', onSignal.SIGTERM);
  } else if (registered === 0 && installed) {
    process.off('exit', cleanUpNow);
    process.off('SIGINT', onSignal.SIGINT);
    process.off('SIGTERM', onSignal.SIGTERM);
  }
}

/** A new directory `<parent>/<prefix>XXXXXX`, removed on exit unless `removeScratchDirectory` removed it first. */
export async function makeScratchDirectory(prefix: string, parent = tmpdir()): Promise<string> {
  const dir = await mkdtemp(join(parent, prefix));
  directories.add(dir);
  watchSignals();
  return dir;
}

export async function removeScratchDirectory(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  directories.delete(dir);
  watchSignals();
}

/** Kills `child` if this process exits (or is interrupted) while the child still runs. */
export function stopOnExit(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null) return;
  children.add(child);
  watchSignals();
  child.once('exit', () => {
    children.delete(child);
    watchSignals();
  });
}
