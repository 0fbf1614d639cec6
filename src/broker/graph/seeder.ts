import type { MarkResponse } from '../../protocol/response.ts';
import { Status } from '../../protocol/status.ts';
import type { WorldGateway } from '../worlds/gateway.ts';
import { parseExport } from './graph-export.ts';
import type { GraphStore } from './graph-store.ts';
import { WorldDirectory } from './world-urls.ts';
import { defaultHubWorld } from '../hub-world.ts';

/**
 * Seeding from each world's published `/graph.md` (Go broker
 * `seedGraphStore`, `seedWorldGraph`), so a cold broker answers backlinks before any crawl:
 * - every configured world is checked, since the broker does not know which
 *   one is the hub;
 * - at most once per world per interval (5 minutes); the check time is taken
 *   before the fetch, so failures are throttled too;
 * - the FETCH is conditional on the last etag; `not-modified` or any other
 *   non-ok status keeps the rows already seeded, except `not-found` and
 *   `archived`: like a `/graph.md` that lists nothing, they withdraw every
 *   row that world's `/graph.md` seeded, and its etag;
 * - rows keyed by a world's dial address are translated to `mark://{name}`;
 * - a world other than the hub speaks only for its own documents
 *   (GraphStore.seedFromExport);
 * - the worlds a `/graph.md` marks partial (its `## Partial` section,
 *   graph-export.ts) keep the rows it leaves out, and the links of their
 *   documents listed with at least the section's per-document bound.
 * Seeding never fails a tool call: errors are logged and the store answers
 * with what it has. Callers arriving while a world's check is in flight wait
 * for it instead of answering from a store about to change, when it is one
 * of the worlds they wait for (`seedFor`).
 */

export const seedPath = '/graph.md';
export const seedCheckIntervalMs = 5 * 60 * 1000;
/**
 * Checks of worlds a caller does not wait for (`seedFor`) that run at once, over all callers: a
 * federation's worth of checks starts at every cold use, and these read on the broker's own share
 * of each world.
 */
export const backgroundSeedChecks = 4;

export type SeedLog = { warn(fields: Record<string, unknown>, message: string): void };

export type SeederOptions = {
  gateway: WorldGateway;
  /** The world whose `/graph.md` is the federation crawl's output and may speak for every world (broker config `hub`; default `root`, src/broker/hub-world.ts). */
  hub?: string;
  store: GraphStore;
  now: () => Date;
  intervalMs?: number;
  log?: SeedLog;
};

export class GraphSeeder {
  readonly #gateway: WorldGateway;
  readonly #hub: string;
  readonly #store: GraphStore;
  readonly #now: () => Date;
  readonly #intervalMs: number;
  readonly #log: SeedLog | undefined;
  readonly #checkedAt = new Map<string, number>();
  readonly #inFlight = new Map<string, Promise<void>>();
  /** Worlds waiting for a background check, and the background checks running. */
  readonly #backlog = new Set<string>();
  #backgroundRunning = 0;

  constructor(options: SeederOptions) {
    this.#gateway = options.gateway;
    this.#hub = options.hub ?? defaultHubWorld;
    this.#store = options.store;
    this.#now = options.now;
    this.#intervalMs = options.intervalMs ?? seedCheckIntervalMs;
    this.#log = options.log;
  }

  /**
   * Checks every configured world (in parallel) whose throttle has expired. A
   * caller's abort only stops its own wait: the checks are shared with other
   * callers and bounded by the gateway's own timeouts.
   */
  async seedAll(signal?: AbortSignal): Promise<void> {
    await untilAborted(Promise.all(this.#gateway.list().map((world) => this.seedWorld(world.name))), signal);
  }

  /**
   * Checks `worlds` (throttled as ever) and waits only for them: the seeds
   * that can change the caller's answer (the hub, whose `/graph.md` speaks for
   * every world, and the target's own world). Every other configured world is
   * checked in the background, `backgroundSeedChecks` at a time over all
   * callers, so one slow world's `/graph.md` no longer holds every backlinks
   * answer; a background failure is logged, never thrown.
   */
  async seedFor(worlds: readonly string[], signal?: AbortSignal): Promise<void> {
    const waited = new Set(worlds.filter((world) => this.#gateway.get(world) !== undefined));
    // Only worlds seedWorld would check now: every graph tool call lands here, and nearly every world is throttled.
    const now = this.#now().getTime();
    this.#inBackground(
      this.#gateway
        .list()
        .map((world) => world.name)
        .filter((name) => !waited.has(name) && this.#due(name, now)),
    );
    await untilAborted(Promise.all([...waited].map((world) => this.seedWorld(world))), signal);
  }

  #inBackground(worlds: readonly string[]): void {
    for (const world of worlds) this.#backlog.add(world);
    while (this.#backgroundRunning < backgroundSeedChecks && this.#backlog.size > 0) {
      this.#backgroundRunning++;
      void this.#drainBacklog();
    }
  }

  async #drainBacklog(): Promise<void> {
    try {
      for (let next = this.#backlog.values().next(); !next.done; next = this.#backlog.values().next()) {
        const world = next.value;
        this.#backlog.delete(world);
        await this.seedWorld(world).catch((error: unknown) =>
          this.#log?.warn({ world, err: error instanceof Error ? error.message : String(error) }, 'graph seed failed'),
        );
      }
    } finally {
      this.#backgroundRunning--;
    }
  }

  /**
   * Forgets when `world` was last checked, so the next use reads its
   * `/graph.md` again (still conditional on the etag), whatever the throttle
   * says: the world reported a change (WATCH), or another replica announced a
   * write (src/broker/graph/graph-service.ts `heardPublished`).
   */
  forget(world: string): void {
    this.#checkedAt.delete(world);
  }

  seedWorld(world: string): Promise<void> {
    const running = this.#inFlight.get(world);
    if (running !== undefined) return running;
    const now = this.#now().getTime();
    if (!this.#due(world, now)) return Promise.resolve();
    this.#checkedAt.set(world, now);
    const check = this.#check(world).finally(() => this.#inFlight.delete(world));
    this.#inFlight.set(world, check);
    return check;
  }

  /** Whether `world` needs a check at `now`: none in flight, and none within the interval (or it was forgotten). */
  #due(world: string, now: number): boolean {
    if (this.#inFlight.has(world)) return false;
    const last = this.#checkedAt.get(world);
    return last === undefined || now - last >= this.#intervalMs;
  }

  async #check(world: string): Promise<void> {
    const etag = this.#store.seedEtag(world);
    let response: MarkResponse;
    try {
      response = await this.#gateway.read(world, {
        verb: 'FETCH',
        path: seedPath,
        ...(etag === '' ? {} : { metadata: { 'if-none-match': etag } }),
      });
    } catch (error) {
      this.#log?.warn(
        { world, err: error instanceof Error ? error.message : String(error) },
        'graph seed fetch failed',
      );
      return;
    }
    const origin = { kind: world === this.#hub ? ('hub' as const) : ('world' as const), world };
    // A /graph.md gone (archived, deleted) or republished empty is its writer
    // taking back everything it said: its rows go, and its etag with them, so
    // a /graph.md published again is read whole.
    if (response.status === Status.NotFound || response.status === Status.Archived)
      return this.#store.withdrawSeed(origin);
    // not-modified: the seeded rows are current; anything else non-ok (a
    // failure, a protected document) says nothing about them: they stay.
    if (response.status !== Status.Ok) return;
    const body = Buffer.from(response.body).toString('utf8');
    const parsed = parseExport(body);
    if (parsed.nodes.length === 0 && parsed.edges.length === 0) return this.#store.withdrawSeed(origin);
    const worlds = new WorldDirectory(this.#gateway.list());
    const nodes = parsed.nodes.map((node) => ({ ...node, url: worlds.translate(node.url) }));
    const edges = parsed.edges.map((edge) => ({
      ...edge,
      from: worlds.translate(edge.from),
      to: worlds.translate(edge.to),
    }));
    const seeded = this.#store.seedFromExport(nodes, edges, origin, parsed.partial);
    if (seeded.notRecorded.length > 0 || seeded.linksCut.length > 0)
      this.#log?.warn(
        { world, notRecorded: seeded.notRecorded.length, linksCut: seeded.linksCut.length },
        'graph seed partly recorded: the link graph has no room for all of it',
      );
    const nextEtag = response.metadata.etag;
    if (nextEtag) this.#store.setSeedEtag(world, nextEtag);
  }
}

function untilAborted(work: Promise<unknown>, signal: AbortSignal | undefined): Promise<void> {
  if (signal === undefined) return work.then(() => {});
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const stop = () => resolve();
    signal.addEventListener('abort', stop, { once: true });
    work.then(
      () => {
        signal.removeEventListener('abort', stop);
        resolve();
      },
      (error: unknown) => {
        signal.removeEventListener('abort', stop);
        reject(error);
      },
    );
  });
}
