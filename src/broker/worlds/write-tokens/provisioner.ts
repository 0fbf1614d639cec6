/**
 * Gets a world's write token (Go broker `world_write_tokens.go` `Provision`): the cached raw
 * token, else the stored record (another replica's or an earlier run's), else
 * a newly minted one committed with create-only concurrency so the first
 * commit wins; then makes sure the world's tokens.toml holds its hash. One
 * provisioning per world at a time in this process (the Go broker had none).
 */
import type { WorldDefinition } from '../world-definition.ts';
import { mintWriteTokenRecord } from './record.ts';
import type { WorldTokensSink } from './sink.ts';
import { WriteTokenConflictError, type StoredWriteToken, type WriteTokenStore } from './store.ts';

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
    const stored = (await this.#store.get(world.name)) ?? (await this.#create(world));
    await this.#sink.ensure(world, stored.record);
    this.#cache.set(world.name, stored.record.rawToken);
    return stored.record.rawToken;
  }

  async #create(world: WorldDefinition): Promise<StoredWriteToken> {
    try {
      return await this.#store.put(world.name, mintWriteTokenRecord(world.name, world.writeTokenPaths), null);
    } catch (error) {
      if (!(error instanceof WriteTokenConflictError)) throw error;
      // Another replica committed first: its record wins.
      const winner = await this.#store.get(world.name);
      if (winner === null) throw error;
      return winner;
    }
  }
}
