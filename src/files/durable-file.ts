/**
 * The one home of durable file writes, for the world store, the broker's file
 * backends and the CLI's credentials: a synced new file, whole-file
 * replacement by temp file + fsync + rename + directory fsync (readers,
 * including the world's tokens watcher, see the old file or the new one, never
 * a torn one), an exclusive create for "first record wins", and a per-path
 * in-process lock.
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** File contents, or null when the file does not exist. */
export async function readIfExists(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The permission bits of an existing file, or `fallback` for a new one. */
export async function modeOr(path: string, fallback: number): Promise<number> {
  try {
    return (await stat(path)).mode & 0o777;
  } catch {
    return fallback;
  }
}

export type SyncedFileOptions = {
  /** Permission bits; exact unless `umask` is set. */
  mode: number;
  /** Let the process umask narrow `mode`, as Go's file writes do (the world store). */
  umask?: boolean;
  /** Modification time to set before the sync. */
  mtime?: Date;
};

/** Creates `path` (it must not exist) with `data`, and fsyncs it before returning. */
export async function writeSyncedFile(path: string, data: Uint8Array, options: SyncedFileOptions): Promise<void> {
  const handle = await open(path, 'wx', options.mode);
  try {
    if (options.umask !== true) await handle.chmod(options.mode); // open() applies the umask; chmod does not
    await handle.writeFile(data);
    if (options.mtime !== undefined) await handle.utimes(options.mtime, options.mtime);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function writeTemp(path: string, data: Uint8Array, mode: number): Promise<string> {
  const temp = join(dirname(path), `.${basename(path)}.tmp-${randomBytes(6).toString('hex')}`);
  await writeSyncedFile(temp, data, { mode });
  return temp;
}

/** Makes the directory's entries (a new or renamed name) survive a crash. */
export async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Replaces (or creates) `path` with `data` atomically. */
export async function replaceFile(path: string, data: Uint8Array, mode: number): Promise<void> {
  const temp = await writeTemp(path, data, mode);
  try {
    await rename(temp, path);
  } catch (error) {
    await unlink(temp).catch(() => {});
    throw error;
  }
  await syncDir(dirname(path));
}

/**
 * Creates `path` with `data` only if it does not exist, atomically across
 * processes (link(2) fails on an existing name). Returns false if it existed.
 */
export async function createExclusive(path: string, data: Uint8Array, mode: number): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temp = await writeTemp(path, data, mode);
  try {
    await link(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  } finally {
    await unlink(temp).catch(() => {});
  }
  await syncDir(dirname(path));
  return true;
}

/** Runs tasks for one key one at a time (in this process); other keys are not held up. */
export class KeyedLock {
  readonly #tails = new Map<string, Promise<unknown>>();

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.#tails.get(key) ?? Promise.resolve();
    const current = previous.catch(() => {}).then(task);
    this.#tails.set(key, current);
    try {
      return await current;
    } finally {
      if (this.#tails.get(key) === current) this.#tails.delete(key);
    }
  }
}
