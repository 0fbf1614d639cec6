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
 * record (`remember`) serves the recorded Service while it claims the name
 * (docs/decisions.md, "Replicas agree on a contested world name through the
 * broker's shared state"). Until its view is `whole()` (every watched scope
 * has listed), the recorded Service outranks the one serving the name here:
 * a replica whose list failed in the recorded Service's scope served from the
 * claimants it saw, and hands the name back once that Service appears. A
 * recorded Service seen to stop claiming the name loses its place, as it
 * does on the running replicas; once whole, the record is dropped, and the
 * replica chooses as the others do.
 *
 * At most `maxWorlds` names are served from Services (`discovery.maxWorlds`):
 * a Service claiming one more name is refused and reported, and counted
 * (`onRefused`), until a served name goes; then the refused name of the
 * oldest claimant takes the place. The start-up list fills the places
 * oldest first, so replicas that see the same Services serve the same names.
 * The limit bounds what one discovered world costs the broker many times
 * over, and the replicas' served-names record (served-names.ts), which must
 * fit one Secret.
 */
import { defaultMaxDiscoveredWorlds } from '../config/schema.ts';
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
  readonly #maxWorlds: number;
  readonly #onRefused: (count: number) => void;
  /** Service → the name it was refused for because `maxWorlds` names were served, so each is reported once. */
  readonly #refused = new Map<string, string>();
  /** World name → the Service the replicas recorded serving it, while this replica's view is partial. */
  #recorded = new Map<string, string>();
  #listed = false;
  #whole = false;

  constructor(options: {
    sink: DiscoveredWorldSink;
    configuredWorlds: Iterable<string>;
    onIssue?: (issue: DiscoveryIssue) => void;
    /** How many Services are ignored because another Service serves their name, on every change. */
    onConflicts?: (count: number) => void;
    /** The Service now serving a name (`namespace/name`), or null when none does: for the replicas' shared record. */
    onServe?: (name: string, service: string | null) => void;
    /** Names served from Services at most (default `defaultMaxDiscoveredWorlds`). */
    maxWorlds?: number;
    /** How many Services are refused because `maxWorlds` names are served, on every change. */
    onRefused?: (count: number) => void;
  }) {
    this.#sink = options.sink;
    this.#configured = new Set(options.configuredWorlds);
    this.#onIssue = options.onIssue ?? (() => {});
    this.#onConflicts = options.onConflicts ?? (() => {});
    this.#onServe = options.onServe ?? (() => {});
    this.#maxWorlds = options.maxWorlds ?? defaultMaxDiscoveredWorlds;
    this.#onRefused = options.onRefused ?? (() => {});
  }

  /**
   * The replicas' record of which Service serves each name (world name →
   * `namespace/name`), read before the lists it is applied to: before
   * `listed()`, and again before a relist while the view is not whole, so
   * that it is never older than the Services it ranks.
   */
  remember(recorded: ReadonlyMap<string, string>): void {
    if (!this.#whole) this.#recorded = new Map(recorded);
  }

  /**
   * Every watched scope has listed: from here on this replica sees every
   * claim as the other replicas do, and the record, which it does not follow
   * as it changes, no longer ranks anything. Returns the names published
   * before whose Service the record does not name: chosen from part of the
   * claimants, they may differ from what the other replicas serve.
   */
  whole(): string[] {
    const unconfirmed = [...this.#published]
      .filter(([name, world]) => this.#recorded.get(name) !== world.service)
      .map(([name]) => name);
    this.#whole = true;
    if (this.#listed) this.#recorded.clear();
    return unconfirmed;
  }

  /**
   * Whether `whole()` was called: this replica's view is whole (every scope
   * has listed), so that its choices may be recorded.
   */
  get isWhole(): boolean {
    return this.#whole;
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
      // Its claim ended: the running replicas moved on, so a later claim of it is a new one.
      if (this.#recorded.get(before.name) === service) this.#recorded.delete(before.name);
      this.#forgetConflict(service);
      this.#forgetRefused(service);
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
    // Oldest claimant first, so that at the limit the same names are served whatever the list order.
    for (const name of new Set([...this.#services.values()].sort(oldestFirst).map((world) => world.name)))
      this.#reconcile(name);
    if (this.#whole) this.#recorded.clear();
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
        this.#onServe(name, null);
        this.#fillFreedPlace();
      }
      return;
    }
    if (current === undefined && this.#published.size >= this.#maxWorlds) {
      this.#refuse(name, claims);
      return;
    }
    for (const claim of claims) this.#forgetRefused(claim.service);
    this.#reportLosers(name, claims, winner);
    if (current !== undefined && sameWorld(current, winner)) return;
    this.#published.set(name, winner);
    this.#sink.upsert(winner);
    if (current?.service !== winner.service) this.#onServe(name, winner.service);
  }

  /**
   * The Service the replicas recorded, while it claims the name (only until
   * the view is whole); else the serving Service while it still claims the
   * name; else the oldest claimant.
   */
  #winner(
    name: string,
    claims: readonly DiscoveredWorld[],
    current: DiscoveredWorld | undefined,
  ): DiscoveredWorld | undefined {
    const recorded = this.#recorded.get(name);
    const agreed = claims.find((claim) => claim.service === recorded);
    if (agreed !== undefined) return agreed;
    const serving = current === undefined ? undefined : this.#services.get(current.service);
    if (serving?.name === name) return serving;
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

  #refuse(name: string, claims: readonly DiscoveredWorld[]): void {
    for (const claim of claims) {
      if (this.#refused.get(claim.service) === name) continue;
      this.#refused.set(claim.service, name);
      this.#onRefused(this.#refused.size);
      this.#onIssue({
        service: claim.service,
        problem: `world ${JSON.stringify(name)} is refused: discovery already serves ${this.#maxWorlds} worlds (discovery.maxWorlds); it is served once one of them goes`,
      });
    }
  }

  /** A served name went: the refused name whose oldest claimant is oldest takes its place. */
  #fillFreedPlace(): void {
    const waiting = [...this.#refused.keys()]
      .map((service) => this.#services.get(service))
      .filter((world): world is DiscoveredWorld => world !== undefined)
      .sort(oldestFirst)[0];
    if (waiting !== undefined) this.#reconcile(waiting.name);
  }

  #forgetRefused(service: string): void {
    if (this.#refused.delete(service)) this.#onRefused(this.#refused.size);
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
