/**
 * Gets a world's write token (Go broker `world_write_tokens.go` `Provision`): the cached raw
 * token, else the stored record (another replica's or an earlier run's) when
 * its paths are the configured ones, else a newly minted one committed with
 * optimistic concurrency so the first commit wins; then makes sure the world's
 * tokens.toml holds its entry as the record says. Unlike the Go broker, a
 * stored record whose paths differ from `worlds[].defaultToken.paths` is
 * replaced, so narrowing the paths takes effect. One provisioning per world at
 * a time in this process (the Go broker had none).
 */
import type { WorldDefinition } from '../world-definition.ts';
import { mintWriteTokenRecord } from './record.ts';
import type { WorldTokensSink } from './sink.ts';
import { WriteTokenConflictError, WriteTokenStoreError, type StoredWriteToken, type WriteTokenStore } from './store.ts';

/** Commits tried when other replicas keep committing first (a rolling upgrade that changes the paths). */
const maxCommitAttempts = 3;

export class WriteTokenProvisioner {
  readonly #store: WriteTokenStore;
  readonly #sink: WorldTokensSink;
  readonly #cache = new Map<string, string>();
  readonly #inFlight = new Map<string, Promise<string>>();

  constructor(store: WriteTokenStore, sink: WorldTokensSink) {
    this.#store = store;
    this.#sink = sink;
  }

  /** The raw write token of `world`; throws the store's or sink's error when it cannot be provisioned. */
  token(world: WorldDefinition): Promise<string> {
    const cached = this.#cache.get(world.name);
    if (cached !== undefined) return Promise.resolve(cached);
    let pending = this.#inFlight.get(world.name);
    if (pending === undefined) {
      pending = this.#provision(world).finally(() => this.#inFlight.delete(world.name));
      this.#inFlight.set(world.name, pending);
    }
    return pending;
  }

  /** Forget the cached token, so the next `token` re-reads the store and re-syncs the world. */
  invalidate(world: string): void {
    this.#cache.delete(world);
  }

  async #provision(world: WorldDefinition): Promise<string> {
    const stored = await this.#recordWithConfiguredPaths(world);
    await this.#sink.ensure(world, stored.record);
    this.#cache.set(world.name, stored.record.rawToken);
    return stored.record.rawToken;
  }

  /**
   * The stored record if its paths are the configured `writeTokenPaths`; else a
   * newly minted record committed over it (create-only when there is none,
   * at the read version when there is). A record with other paths is never
   * reused: the world enforces the paths of the token's entry, so after
   * `defaultToken.paths` is narrowed the old token must stop working, not just
   * get its entry edited (docs/decisions.md). On a conflict another replica
   * committed first: its record is taken when it has our paths.
   */
  async #recordWithConfiguredPaths(world: WorldDefinition): Promise<StoredWriteToken> {
    for (let attempt = 1; ; attempt++) {
      const stored = await this.#store.get(world.name);
      if (stored !== null && samePaths(stored.record.paths, world.writeTokenPaths)) return stored;
      const minted = mintWriteTokenRecord(world.name, world.writeTokenPaths);
      try {
        return await this.#store.put(world.name, minted, stored?.version ?? null);
      } catch (error) {
        if (!(error instanceof WriteTokenConflictError)) throw error;
        if (attempt >= maxCommitAttempts)
          throw new WriteTokenStoreError(
            world.name,
            `the write-token record of world ${JSON.stringify(world.name)} kept changing (${maxCommitAttempts} attempts): ` +
              'replicas with different worlds[].defaultToken.paths re-mint it in turn; it settles once every replica runs the same config',
            { cause: error },
          );
      }
    }
  }
}

/** Order counts: a reordered list re-mints once, which is cheap, and keeps the comparison obvious. */
function samePaths(stored: readonly string[], configured: readonly string[]): boolean {
  return stored.length === configured.length && stored.every((path, index) => path === configured[index]);
}
