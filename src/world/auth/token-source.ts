/**
 * The live token set (Go `auth.Source`): loaded at start, reloaded when the file
 * changes, published as a whole new immutable snapshot. A bad file at start-up
 * is fatal (TokensFileError); a bad file on reload keeps the previous snapshot
 * and reports the error. No file configured → `snapshot()` is null: writes are
 * not permitted and reads are public.
 *
 * Change detection: `fs.watch` on the directory (editors and `mv` replace the
 * file, which a watch on the file itself would lose) plus a stat poll as a
 * fallback for file systems where watching is unreliable.
 */
import { watch, type FSWatcher } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { TokenSnapshot } from './token-snapshot.ts';
import { TokensFileError } from './tokens-file.ts';

export type TokenSourceOptions = {
  now?: () => Date;
  /** A reload failed; the previous snapshot stays in force. */
  onReloadError?: (error: Error) => void;
  /** A new snapshot was published. */
  onReload?: (snapshot: TokenSnapshot) => void;
  /** Stat poll interval; 0 disables polling. Default 2000 ms. */
  pollIntervalMs?: number;
  /** Watch for changes at all. Default true. */
  watch?: boolean;
  /** Use `fs.watch` (besides the poll). Default true; false leaves only the poll. */
  fsWatch?: boolean;
};

/** How long watch events must be quiet before the file is read. */
const reloadSettleMs = 50;

export class TokenSource {
  readonly filePath: string | null;
  readonly #options: TokenSourceOptions;
  #current: TokenSnapshot | null = null;
  #loadedText: string | null = null;
  #statKey = '';
  #watcher: FSWatcher | null = null;
  #poll: NodeJS.Timeout | null = null;
  #reloading: Promise<boolean> | null = null;
  #again = false;
  #debounce: NodeJS.Timeout | null = null;

  private constructor(filePath: string | null, options: TokenSourceOptions) {
    this.filePath = filePath;
    this.#options = options;
  }

  /** Load `filePath` (null: no auth configured). Throws TokensFileError when the file is bad. */
  static async open(filePath: string | null, options: TokenSourceOptions = {}): Promise<TokenSource> {
    const source = new TokenSource(filePath === null ? null : path.resolve(filePath), options);
    if (source.filePath === null) return source;
    await source.#load();
    if (options.watch !== false) source.#startWatching();
    return source;
  }

  /** The snapshot in force; pin it for the length of one request. */
  snapshot(): TokenSnapshot | null {
    return this.#current;
  }

  /** Re-read the file now. Resolves true when a new snapshot was published. */
  reload(): Promise<boolean> {
    if (this.#reloading !== null) {
      this.#again = true;
      return this.#reloading;
    }
    this.#reloading = this.#reloadLoop().finally(() => {
      this.#reloading = null;
    });
    return this.#reloading;
  }

  close(): void {
    this.#watcher?.close();
    this.#watcher = null;
    if (this.#poll !== null) clearInterval(this.#poll);
    this.#poll = null;
    if (this.#debounce !== null) clearTimeout(this.#debounce);
    this.#debounce = null;
  }

  async #reloadLoop(): Promise<boolean> {
    let published = false;
    do {
      this.#again = false;
      try {
        published = (await this.#load()) || published;
      } catch (err) {
        this.#options.onReloadError?.(err as Error);
      }
    } while (this.#again);
    return published;
  }

  /** Read, parse and publish; false when the text is unchanged. */
  async #load(): Promise<boolean> {
    const filePath = this.filePath ?? '';
    let text: string;
    try {
      this.#statKey = await statKey(filePath);
      text = await readFile(filePath, 'utf8');
    } catch (err) {
      throw new TokensFileError(`load tokens file ${JSON.stringify(filePath)}: ${(err as Error).message}`, {
        cause: err,
      });
    }
    if (text === this.#loadedText) return false;
    const snapshot = TokenSnapshot.parse(text, {
      source: filePath,
      ...(this.#options.now ? { now: this.#options.now } : {}),
    });
    this.#current = snapshot;
    this.#loadedText = text;
    this.#options.onReload?.(snapshot);
    return true;
  }

  #startWatching(): void {
    const filePath = this.filePath ?? '';
    const base = path.basename(filePath);
    if (this.#options.fsWatch !== false) this.#startFsWatch(filePath, base);
    const interval = this.#options.pollIntervalMs ?? 2000;
    if (interval > 0) {
      this.#poll = setInterval(() => void this.#pollOnce(), interval);
      this.#poll.unref();
    }
  }

  #startFsWatch(filePath: string, base: string): void {
    try {
      this.#watcher = watch(path.dirname(filePath), { persistent: false }, (_event, name) => {
        if (name === null || name.toString() === base) this.#scheduleReload();
      });
      this.#watcher.on('error', () => this.#watcher?.close());
    } catch {
      // No watching on this file system: the poll still notices changes.
      this.#watcher = null;
    }
  }

  /**
   * A burst of watch events (truncate, write, close) becomes one reload a moment
   * later, so a file caught half-written is not reported as broken.
   */
  #scheduleReload(): void {
    if (this.#debounce !== null) clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => {
      this.#debounce = null;
      void this.reload();
    }, reloadSettleMs);
    this.#debounce.unref();
  }

  /** Reload when the file's identity, size or times changed; a missing file is reported once. */
  async #pollOnce(): Promise<void> {
    const key = await statKey(this.filePath ?? '').catch(() => 'missing');
    if (key === this.#statKey) return;
    this.#statKey = key;
    await this.reload();
  }
}

async function statKey(filePath: string): Promise<string> {
  const info = await stat(filePath);
  return `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
}
