/**
 * A lock shared by processes, for a read-modify-write of one file that
 * several processes may run at once (the CLI's credentials). The lock is a
 * file made with `createExclusive` (link(2), so exactly one creator wins)
 * holding who took it: pid, host and when. A lock whose holder is gone is
 * taken over: its pid no longer runs on this host (a killed process), or it
 * is older than `staleAfterMs` (a hung one, or one on another host sharing
 * the directory).
 */
import { randomBytes } from 'node:crypto';
import { link, readFile, rename, stat, unlink } from 'node:fs/promises';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { createExclusive } from './durable-file.ts';

export type LockFileOptions = {
  /** A lock held longer than this is taken as abandoned; make it longer than the task can take. */
  staleAfterMs: number;
  /** Pause between attempts while another process holds the lock. */
  pollMs?: number;
};

type Holder = { pid?: number; host?: string; since: number };

/** Another process held the lock for longer than the wait allows. */
class LockFileBusyError extends Error {
  override readonly name = 'LockFileBusyError';
}

/** Runs `task` while holding the lock file at `path`; the file is removed afterwards. */
export async function withLockFile<T>(path: string, task: () => Promise<T>, options: LockFileOptions): Promise<T> {
  const content = await acquire(path, options);
  try {
    return await task();
  } finally {
    await removeIfStill(path, content);
  }
}

async function acquire(path: string, options: LockFileOptions): Promise<string> {
  // The wait is bounded: a live holder is taken over after staleAfterMs anyway.
  const giveUpAt = Date.now() + 2 * options.staleAfterMs;
  for (;;) {
    const content = JSON.stringify({
      pid: process.pid,
      host: hostname(),
      since: Date.now(),
      nonce: randomBytes(8).toString('hex'),
    });
    if (await createExclusive(path, Buffer.from(content), 0o600)) return content;
    const seen = await readHolder(path);
    if (seen === null) continue; // released between our attempt and the read
    if (abandoned(seen.holder, options.staleAfterMs)) {
      await removeIfStill(path, seen.content);
      continue;
    }
    if (Date.now() > giveUpAt)
      throw new LockFileBusyError(
        `another process${seen.holder.pid === undefined ? '' : ` (pid ${seen.holder.pid})`} has held ${path} since ${new Date(seen.holder.since).toISOString()}; wait for it to finish, or delete the file if that process no longer runs`,
      );
    await sleep(options.pollMs ?? 50);
  }
}

/** The lock's holder, or null when there is no lock file. Unreadable content dates from the file's mtime. */
async function readHolder(path: string): Promise<{ content: string; holder: Holder } | null> {
  let content: string;
  try {
    content = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  let parsed: Partial<Holder> = {};
  try {
    parsed = JSON.parse(content) as Partial<Holder>;
  } catch {
    // Not a holder we wrote: only the file's own date tells how old it is.
  }
  const since = typeof parsed.since === 'number' ? parsed.since : await mtimeOf(path);
  if (since === null) return null;
  return {
    content,
    holder: {
      ...(typeof parsed.pid === 'number' ? { pid: parsed.pid } : {}),
      ...(typeof parsed.host === 'string' ? { host: parsed.host } : {}),
      since,
    },
  };
}

/** The file's mtime, or null when it went meanwhile. */
async function mtimeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).mtimeMs;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function abandoned(holder: Holder, staleAfterMs: number): boolean {
  if (Date.now() - holder.since > staleAfterMs) return true;
  return holder.pid !== undefined && holder.host === hostname() && !running(holder.pid);
}

/** Whether a process with this pid runs here (signal 0 checks without sending; EPERM means it runs as someone else). */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Removes the lock file if it still holds `content`. Moving it aside first
 * makes the check and the removal one step: a lock another process took in
 * between is moved back, not deleted.
 */
async function removeIfStill(path: string, content: string): Promise<void> {
  const aside = `${path}.${randomBytes(6).toString('hex')}.old`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  try {
    if ((await readFile(aside, 'utf8')) !== content)
      await link(aside, path).catch((error: NodeJS.ErrnoException) => {
        // Someone took the lock after the move; the one moved aside is lost, as it would be if it had expired.
        if (error.code !== 'EEXIST') throw error;
      });
  } finally {
    await unlink(aside).catch(() => {});
  }
}
