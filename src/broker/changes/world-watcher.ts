import { setTimeout as sleep } from 'node:timers/promises';
import { Status } from '../../protocol/status.ts';
import { isKnownWatchOp, parseEvent, watchStallMs, type WatchBlock } from '../../protocol/watch.ts';
import type { WorldChangeSource } from '../worlds/gateway.ts';

/**
 * The broker's side of WATCH (Mark SPEC §6.8): one stream over `/` per world,
 * tokenless like every broker read, resumed with its cursor after a failure
 * and reopened when it stalls (three heartbeats without a block). What it
 * hears becomes notices for the broker's derived state (src/broker/changes).
 * A world that answers the first block with anything but ok or resync does
 * not watch: `bad-request` (a Go world without a change hub) leaves it to the
 * existing polling, asked again after `unsupportedRetryMs`.
 */
export type ChangeNotice =
  | { kind: 'change'; world: string; path: string; op: string; version: number }
  /** The world cannot replay what this broker missed: everything derived from it must be read again. */
  | { kind: 'resync'; world: string };

export type WatchState = 'connecting' | 'watching' | 'unsupported' | 'retrying';

export type WorldWatcherOptions = {
  source: WorldChangeSource;
  log?: { warn(fields: Record<string, unknown>, message: string): void };
  stallMs?: number;
  retryMinMs?: number;
  retryMaxMs?: number;
  unsupportedRetryMs?: number;
};

type Run = { controller: AbortController; state: WatchState };

export class WorldWatcher {
  readonly #options: Required<Omit<WorldWatcherOptions, 'log'>> & Pick<WorldWatcherOptions, 'log'>;
  readonly #runs = new Map<string, Run>();
  readonly #listeners = new Set<(notice: ChangeNotice) => void>();

  constructor(options: WorldWatcherOptions) {
    this.#options = {
      stallMs: watchStallMs,
      retryMinMs: 1000,
      retryMaxMs: 30_000,
      unsupportedRetryMs: 10 * 60_000,
      ...options,
    };
  }

  onNotice(listener: (notice: ChangeNotice) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Watches exactly these worlds: new ones start, gone ones stop. */
  sync(worlds: readonly string[]): void {
    const wanted = new Set(worlds);
    for (const [world, run] of this.#runs)
      if (!wanted.has(world)) {
        run.controller.abort();
        this.#runs.delete(world);
      }
    for (const world of wanted) if (!this.#runs.has(world)) this.#start(world);
  }

  state(world: string): WatchState | undefined {
    return this.#runs.get(world)?.state;
  }

  /** True when `world` streams its changes now (its notices can replace polling). */
  watching(world: string): boolean {
    return this.state(world) === 'watching';
  }

  close(): void {
    for (const run of this.#runs.values()) run.controller.abort();
    this.#runs.clear();
  }

  #start(world: string): void {
    const run: Run = { controller: new AbortController(), state: 'connecting' };
    this.#runs.set(world, run);
    void this.#loop(world, run).catch((error) => this.#warn(world, error, 'world watch stopped'));
  }

  async #loop(world: string, run: Run): Promise<void> {
    const { signal } = run.controller;
    let since: string | undefined;
    let delay = this.#options.retryMinMs;
    let resumedAtOnce = false;
    while (!signal.aborted) {
      const outcome = await this.#once(world, run, since);
      since = outcome.cursor ?? since;
      if (signal.aborted) return;
      if (outcome.acknowledged) resumedAtOnce = false;
      if (outcome.next === 'unsupported') {
        run.state = 'unsupported';
        await sleep(this.#options.unsupportedRetryMs, undefined, { signal }).catch(() => {});
        continue;
      }
      // A resync is followed at once, but only once in a row: a world answering nothing else backs off.
      if (outcome.next === 'now' && !resumedAtOnce) {
        resumedAtOnce = true;
        continue;
      }
      run.state = 'retrying';
      if (outcome.acknowledged) delay = this.#options.retryMinMs;
      await sleep(delay, undefined, { signal }).catch(() => {});
      delay = Math.min(delay * 2, this.#options.retryMaxMs);
    }
  }

  /** One stream, until it ends; says where to resume and how soon. */
  async #once(
    world: string,
    run: Run,
    since: string | undefined,
  ): Promise<{ cursor?: string; acknowledged: boolean; next: 'now' | 'later' | 'unsupported' }> {
    const stall = new AbortController();
    const signal = AbortSignal.any([run.controller.signal, stall.signal]);
    let timer = setTimeout(() => stall.abort(), this.#options.stallMs);
    let cursor: string | undefined;
    let acknowledged = false;
    try {
      for await (const block of this.#options.source.watch(world, { path: '/', ...(since ? { since } : {}) }, signal)) {
        clearTimeout(timer);
        timer = setTimeout(() => stall.abort(), this.#options.stallMs);
        if (block.status === '') {
          cursor = this.#event(world, block) ?? cursor;
          continue;
        }
        if (block.status === Status.Resync) {
          // Resume from the head it names, after everything derived from this world is read again.
          this.#emit({ kind: 'resync', world });
          return { ...(block.metadata.cursor ? { cursor: block.metadata.cursor } : {}), acknowledged, next: 'now' };
        }
        if (block.status === Status.Ok) {
          cursor = block.metadata.cursor ?? cursor;
          acknowledged = true;
          run.state = 'watching';
          continue;
        }
        if (!acknowledged && block.status === Status.BadRequest) return { acknowledged, next: 'unsupported' };
        // closing, a revoked token, rate-limited or server-error: try again later from where we were.
        return { ...(cursor ? { cursor } : {}), acknowledged, next: 'later' };
      }
    } catch (error) {
      if (!run.controller.signal.aborted)
        this.#warn(world, error, stall.signal.aborted ? 'world watch stalled' : 'world watch failed');
    } finally {
      clearTimeout(timer);
    }
    return { ...(cursor ? { cursor } : {}), acknowledged, next: 'later' };
  }

  /** An event's cursor; a malformed event is skipped (its cursor, if any, is not trusted). */
  #event(world: string, block: WatchBlock): string | undefined {
    try {
      const event = parseEvent(block);
      if (isKnownWatchOp(event.op))
        this.#emit({ kind: 'change', world, path: event.path, op: event.op, version: event.version });
      return block.metadata.cursor;
    } catch (error) {
      this.#warn(world, error, 'world watch event skipped');
      return undefined;
    }
  }

  #emit(notice: ChangeNotice): void {
    for (const listener of this.#listeners) {
      try {
        listener(notice);
      } catch (error) {
        this.#warn(notice.world, error, 'change listener failed');
      }
    }
  }

  #warn(world: string, error: unknown, message: string): void {
    this.#options.log?.warn({ world, err: error instanceof Error ? error.message : String(error) }, message);
  }
}
