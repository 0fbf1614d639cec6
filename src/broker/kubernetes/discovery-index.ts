/**
 * Turns Service events into registry changes. Configured worlds win: a Service
 * claiming a configured name is ignored (the config also carries the writer
 * allowlist and tokens Secret, which a label cannot).
 *
 * When two Services claim the same name, the one already serving it keeps it
 * for as long as it claims it: a Service created or relabelled later, in any
 * watched namespace, is reported and ignored, so whoever may create a Service
 * somewhere cannot take over `mark://<name>/...`. Among claimants seen
 * together (the start-up list, or the rest when the serving Service goes) the
 * oldest by `metadata.creationTimestamp`, set by the API server, wins, then
 * `namespace/name`. Nothing is published before `listed()`: until the first
 * lists are in, list order would decide instead of age. Changes are emitted
 * only when what the registry holds for a name actually changes.
 *
 * Age cannot tell a replica that starts during a conflict which claimant
 * came first: an old Service relabelled to a served name is older than the
 * one serving it, and Kubernetes records no time for a label. So the
 * replicas record which Service serves each name (`onServe`, kept in the
 * broker's shared state by world-discovery.ts), and a replica given that
 * record (`remember`) serves the recorded Service at start-up while it still
 * claims the name (docs/decisions.md, "Replicas agree on a contested world
 * name through the broker's shared state").
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
  readonly #onConflicts: (count: number) => void;
  /** Service `namespace/name` → the world it describes. */
  readonly #services = new Map<string, DiscoveredWorld>();
  /** World name → what the sink holds now. */
  readonly #published = new Map<string, DiscoveredWorld>();
  /** Losing Service → the Service it was reported losing to, so each conflict is reported once. */
  readonly #conflicts = new Map<string, string>();
  readonly #onServe: (name: string, service: string | null) => void;
  /** World name → the Service the replicas recorded serving it, for the names this replica has not published yet. */
  #recorded = new Map<string, string>();
  #listed = false;

  constructor(options: {
    sink: DiscoveredWorldSink;
    configuredWorlds: Iterable<string>;
    onIssue?: (issue: DiscoveryIssue) => void;
    /** How many Services are ignored because another Service serves their name, on every change. */
    onConflicts?: (count: number) => void;
    /** The Service now serving a name (`namespace/name`), or null when none does: for the replicas' shared record. */
    onServe?: (name: string, service: string | null) => void;
  }) {
    this.#sink = options.sink;
    this.#configured = new Set(options.configuredWorlds);
    this.#onIssue = options.onIssue ?? (() => {});
    this.#onConflicts = options.onConflicts ?? (() => {});
    this.#onServe = options.onServe ?? (() => {});
  }

  /** The replicas' record of which Service serves each name (world name → `namespace/name`); call before `listed()`. */
  remember(recorded: ReadonlyMap<string, string>): void {
    this.#recorded = new Map(recorded);
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
    if (before !== undefined && before.name !== world?.name) {
      this.#forgetConflict(service);
      this.#reconcile(before.name);
    }
    if (world !== null) this.#reconcile(world.name);
  }

  delete(service: string): void {
    this.put(service, null);
  }

  /**
   * The first list of every watched scope is in: publish, the oldest claimant
   * of each name winning. Until then `put` only records.
   */
  listed(): void {
    if (this.#listed) return;
    this.#listed = true;
    for (const name of new Set([...this.#services.values()].map((world) => world.name))) this.#reconcile(name);
  }

  /** What discovery currently contributes, by world name. */
  worlds(): DiscoveredWorld[] {
    return [...this.#published.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  #reconcile(name: string): void {
    if (!this.#listed) return;
    const current = this.#published.get(name);
    const claims = this.#claimants(name);
    const winner = this.#configured.has(name) ? undefined : this.#winner(name, claims, current);
    if (winner === undefined) {
      if (current !== undefined) {
        this.#published.delete(name);
        this.#sink.remove(name);
        this.#recorded.delete(name);
        this.#onServe(name, null);
      }
      return;
    }
    this.#reportLosers(name, claims, winner);
    if (current !== undefined && sameWorld(current, winner)) return;
    this.#published.set(name, winner);
    this.#sink.upsert(winner);
    this.#recorded.delete(name);
    if (current?.service !== winner.service) this.#onServe(name, winner.service);
  }

  /**
   * The serving Service while it still claims the name; else, until this
   * replica has published the name once, the one the replicas recorded, while
   * it claims the name; else the oldest claimant.
   */
  #winner(
    name: string,
    claims: readonly DiscoveredWorld[],
    current: DiscoveredWorld | undefined,
  ): DiscoveredWorld | undefined {
    const serving = current === undefined ? undefined : this.#services.get(current.service);
    if (serving?.name === name) return serving;
    const recorded = this.#recorded.get(name);
    const agreed = claims.find((claim) => claim.service === recorded);
    if (agreed !== undefined) return agreed;
    return [...claims].sort(oldestFirst)[0];
  }

  #claimants(name: string): DiscoveredWorld[] {
    return [...this.#services.values()].filter((world) => world.name === name);
  }

  #reportLosers(name: string, claims: readonly DiscoveredWorld[], winner: DiscoveredWorld): void {
    this.#forgetConflict(winner.service);
    for (const loser of claims) {
      if (loser.service === winner.service || this.#conflicts.get(loser.service) === winner.service) continue;
      this.#conflicts.set(loser.service, winner.service);
      this.#onConflicts(this.#conflicts.size);
      this.#onIssue({
        service: loser.service,
        problem: `world ${JSON.stringify(name)} is already served by Service ${winner.service}; this Service is ignored until that one goes`,
      });
    }
  }

  #forgetConflict(service: string): void {
    if (this.#conflicts.delete(service)) this.#onConflicts(this.#conflicts.size);
  }
}

/** Older `creationTimestamp` first (a Service without one last), then `namespace/name`. */
function oldestFirst(a: DiscoveredWorld, b: DiscoveredWorld): number {
  const age = (a.createdAt ?? Number.POSITIVE_INFINITY) - (b.createdAt ?? Number.POSITIVE_INFINITY);
  if (age !== 0 && !Number.isNaN(age)) return age;
  return a.service < b.service ? -1 : a.service > b.service ? 1 : 0;
}

function sameWorld(a: DiscoveredWorld, b: DiscoveredWorld): boolean {
  return (
    a.service === b.service && a.address === b.address && a.namespace === b.namespace && a.publicUrl === b.publicUrl
  );
}
