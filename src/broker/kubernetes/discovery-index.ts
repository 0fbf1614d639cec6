/**
 * Turns Service events into registry changes. Configured worlds win: a Service
 * claiming a configured name is ignored (the config also carries the writer
 * allowlist and tokens Secret, which a label cannot). When two Services claim
 * the same name, the first in `namespace/name` order serves it and the other
 * waits; deleting the first promotes the second. Changes are emitted only when
 * what the registry holds for a name actually changes.
 */
import type { DiscoveredWorld } from './service-world.ts';

/** The registry side of discovery (implemented by the world registry). */
export interface DiscoveredWorldSink {
  upsert(world: DiscoveredWorld): void;
  remove(name: string): void;
}

export type DiscoveryIssue = { service: string; problem: string };

export class DiscoveryIndex {
  readonly #sink: DiscoveredWorldSink;
  readonly #configured: ReadonlySet<string>;
  readonly #onIssue: (issue: DiscoveryIssue) => void;
  /** Service `namespace/name` → the world it describes. */
  readonly #services = new Map<string, DiscoveredWorld>();
  /** World name → what the sink holds now. */
  readonly #published = new Map<string, DiscoveredWorld>();

  constructor(options: {
    sink: DiscoveredWorldSink;
    configuredWorlds: Iterable<string>;
    onIssue?: (issue: DiscoveryIssue) => void;
  }) {
    this.#sink = options.sink;
    this.#configured = new Set(options.configuredWorlds);
    this.#onIssue = options.onIssue ?? (() => {});
  }

  /** A Service was added or changed; `world` is null when it no longer describes a world. */
  put(service: string, world: DiscoveredWorld | null): void {
    const before = this.#services.get(service);
    if (world === null) this.#services.delete(service);
    else {
      if (this.#configured.has(world.name))
        this.#onIssue({
          service,
          problem: `world ${JSON.stringify(world.name)} is configured; the configured entry is used`,
        });
      this.#services.set(service, world);
    }
    if (before !== undefined && before.name !== world?.name) this.#reconcile(before.name);
    if (world !== null) this.#reconcile(world.name);
  }

  delete(service: string): void {
    this.put(service, null);
  }

  /** What discovery currently contributes, by world name. */
  worlds(): DiscoveredWorld[] {
    return [...this.#published.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  #reconcile(name: string): void {
    const winner = this.#configured.has(name) ? undefined : this.#claimants(name)[0];
    const current = this.#published.get(name);
    if (winner === undefined) {
      if (current !== undefined) {
        this.#published.delete(name);
        this.#sink.remove(name);
      }
      return;
    }
    if (current !== undefined && sameWorld(current, winner)) return;
    this.#published.set(name, winner);
    this.#sink.upsert(winner);
  }

  #claimants(name: string): DiscoveredWorld[] {
    const claims = [...this.#services.values()]
      .filter((world) => world.name === name)
      .sort((a, b) => (a.service < b.service ? -1 : a.service > b.service ? 1 : 0));
    for (const loser of claims.slice(1))
      this.#onIssue({
        service: loser.service,
        problem: `world ${JSON.stringify(name)} is already served by ${claims[0]!.service}`,
      });
    return claims;
  }
}

function sameWorld(a: DiscoveredWorld, b: DiscoveredWorld): boolean {
  return (
    a.service === b.service && a.address === b.address && a.namespace === b.namespace && a.publicUrl === b.publicUrl
  );
}
