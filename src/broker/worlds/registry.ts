/**
 * The set of worlds the broker routes to: the configured worlds, fixed for the
 * process, merged with worlds found at runtime (Kubernetes discovery, later),
 * which can come and go. A configured world always wins over a discovered one
 * of the same name. Listeners hear every effective change.
 */
import { isValidWorldName } from '../config/index.ts';
import type { WorldDefinition } from './world-definition.ts';

export type WorldChange =
  | { type: 'added'; world: WorldDefinition }
  | { type: 'updated'; world: WorldDefinition; previous: WorldDefinition }
  | { type: 'removed'; world: WorldDefinition };

export type WorldChangeListener = (change: WorldChange) => void;

export class WorldRegistry {
  readonly #configured = new Map<string, WorldDefinition>();
  readonly #discovered = new Map<string, WorldDefinition>();
  readonly #listeners = new Set<WorldChangeListener>();
  #snapshot: readonly WorldDefinition[] | null = null;

  constructor(configured: readonly WorldDefinition[] = []) {
    for (const world of configured) {
      checkName(world.name);
      if (this.#configured.has(world.name)) throw new RangeError(`duplicate world name ${JSON.stringify(world.name)}`);
      this.#configured.set(world.name, { ...world, source: 'config' });
    }
  }

  /** Configured worlds in config order, then discovered ones by name. */
  list(): readonly WorldDefinition[] {
    this.#snapshot ??= [
      ...this.#configured.values(),
      ...[...this.#discovered.values()]
        .filter((w) => !this.#configured.has(w.name))
        .sort((a, b) => (a.name < b.name ? -1 : 1)),
    ];
    return this.#snapshot;
  }

  get(name: string): WorldDefinition | undefined {
    return this.#configured.get(name) ?? this.#discovered.get(name);
  }

  /** Adds or replaces a discovered world. Returns false when a configured world of that name shadows it. */
  upsert(world: WorldDefinition): boolean {
    checkName(world.name);
    const entry: WorldDefinition = { ...world, source: 'discovery' };
    const previous = this.#discovered.get(world.name);
    this.#discovered.set(world.name, entry);
    if (this.#configured.has(world.name)) return false;
    this.#changed(
      previous === undefined ? { type: 'added', world: entry } : { type: 'updated', world: entry, previous },
    );
    return true;
  }

  /** Forgets a discovered world. Configured worlds cannot be removed; returns whether routing changed. */
  remove(name: string): boolean {
    const previous = this.#discovered.get(name);
    if (previous === undefined) return false;
    this.#discovered.delete(name);
    if (this.#configured.has(name)) return false;
    this.#changed({ type: 'removed', world: previous });
    return true;
  }

  /** Subscribes to effective changes; returns the unsubscribe function. */
  onChange(listener: WorldChangeListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #changed(change: WorldChange): void {
    this.#snapshot = null;
    for (const listener of this.#listeners) listener(change);
  }
}

function checkName(name: string): void {
  if (!isValidWorldName(name)) throw new RangeError(`invalid world name ${JSON.stringify(name)}`);
}
