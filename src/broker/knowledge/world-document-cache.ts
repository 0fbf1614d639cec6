import type { MarkResponse } from '../../protocol/response.ts';
import { Status } from '../../protocol/status.ts';
import { WorldGatewayError, type WorldGateway } from '../worlds/gateway.ts';

/**
 * One well-known document per world (`/world.md`, `/.well-known/demarkus/policy.md`),
 * kept fresh with conditional FETCHes: at most one check per document per
 * interval, `if-none-match` on the etag held, concurrent callers share one
 * check, and a failed check keeps the copy already held (a world that is down
 * does not make its descriptor or the org's policy vanish).
 *
 * Reads go through `WorldGateway.read` without a caller's credentials, so a
 * cached copy is what any caller may read and can be shared between callers
 * (docs/knowledge.md "Read rights").
 */

export type WorldDocument = {
  world: string;
  path: string;
  body: string;
  etag: string;
  metadata: Readonly<Record<string, string>>;
};

/**
 * What a check found: the document, its absence (`not-found`), a refusal to show it without
 * credentials (`unauthorized`, `not-permitted`: the world may not even say whether it exists), or
 * nothing known yet because the world could not say.
 */
export type DocumentState =
  | { kind: 'present'; document: WorldDocument }
  | { kind: 'absent' }
  | { kind: 'protected' }
  | { kind: 'unknown'; reason: string };

export type WorldDocumentCacheOptions = {
  gateway: WorldGateway;
  now?: () => number;
  /** How long an answer is trusted before the next conditional check (default 30 s). */
  revalidateMs?: number;
  /** Called when a check fails; the last good state is kept. */
  onCheckFailed?: (world: string, path: string, reason: string) => void;
};

type Entry = { state: DocumentState; checkedAt: number };
/** Whether a check may keep its answer: `forgotten` once the document was invalidated while it ran (the answer may be stale). */
type CheckStanding = { forgotten: boolean };
/** A check under way, which concurrent callers join, and its standing. */
type Flight = { check: Promise<DocumentState>; standing: CheckStanding };

const utf8 = new TextDecoder('utf-8', { fatal: false });

export class WorldDocumentCache {
  readonly #gateway: WorldGateway;
  readonly #now: () => number;
  readonly #revalidateMs: number;
  readonly #onCheckFailed: WorldDocumentCacheOptions['onCheckFailed'];
  // Keyed by world and path; both come from configuration and code, never from callers, so the map stays small.
  readonly #entries = new Map<string, Entry>();
  readonly #inFlight = new Map<string, Flight>();

  constructor(options: WorldDocumentCacheOptions) {
    this.#gateway = options.gateway;
    this.#now = options.now ?? Date.now;
    this.#revalidateMs = options.revalidateMs ?? 30_000;
    this.#onCheckFailed = options.onCheckFailed;
  }

  /** The document's state, checking the world first when the held answer is older than the interval. */
  get(world: string, path: string): Promise<DocumentState> {
    const key = `${world}\n${path}`;
    const entry = this.#entries.get(key);
    if (entry !== undefined && this.#now() - entry.checkedAt < this.#revalidateMs) return Promise.resolve(entry.state);
    const running = this.#inFlight.get(key);
    if (running !== undefined) return running.check;
    const standing: CheckStanding = { forgotten: false };
    const check = this.#check(world, path, entry, standing).finally(() => {
      if (this.#inFlight.get(key)?.standing === standing) this.#inFlight.delete(key);
    });
    this.#inFlight.set(key, { check, standing });
    return check;
  }

  /**
   * Forgets what is held for one document, so the next `get` reads it again (after a publish through the
   * broker, or a change the world reported). A check already under way may have been answered before the
   * change: the next `get` does not join it, and its answer is not kept.
   */
  invalidate(world: string, path: string): void {
    this.#forget(`${world}\n${path}`);
  }

  /**
   * Forgets every document held for one world, as `invalidate` does for one: after a WATCH `resync`
   * the world cannot say what changed while the broker was not listening (Mark SPEC §6.8).
   */
  invalidateWorld(world: string): void {
    const prefix = `${world}\n`;
    for (const key of new Set([...this.#entries.keys(), ...this.#inFlight.keys()]))
      if (key.startsWith(prefix)) this.#forget(key);
  }

  #forget(key: string): void {
    this.#entries.delete(key);
    const running = this.#inFlight.get(key);
    if (running === undefined) return;
    running.standing.forgotten = true;
    this.#inFlight.delete(key);
  }

  async #check(
    world: string,
    path: string,
    previous: Entry | undefined,
    standing: CheckStanding,
  ): Promise<DocumentState> {
    const checkedAt = this.#now();
    const held = previous?.state.kind === 'present' ? previous.state.document : undefined;
    let response: MarkResponse;
    try {
      response = await this.#gateway.read(world, {
        verb: 'FETCH',
        path,
        ...(held && held.etag !== '' ? { metadata: { 'if-none-match': held.etag } } : {}),
      });
    } catch (error) {
      // A world the broker does not have (a hub not configured, a world removed) holds no document:
      // that is an answer, not a failed check.
      if (error instanceof WorldGatewayError && error.code === 'ERR_WORLD_NOT_FOUND')
        return this.#settled(world, path, { kind: 'absent' }, checkedAt, standing);
      const reason = error instanceof Error ? error.message : String(error);
      return this.#failed(world, path, previous, checkedAt, reason, standing);
    }
    let state: DocumentState;
    if (response.status === Status.NotModified && held) state = previous!.state;
    else if (response.status === Status.Ok) {
      const { etag = '', ...metadata } = response.metadata;
      state = { kind: 'present', document: { world, path, body: utf8.decode(response.body), etag, metadata } };
    } else if (response.status === Status.NotFound || response.status === Status.Archived) state = { kind: 'absent' };
    else if (response.status === Status.Unauthorized || response.status === Status.NotPermitted)
      state = { kind: 'protected' };
    else return this.#failed(world, path, previous, checkedAt, `world answered ${response.status}`, standing);
    return this.#settled(world, path, state, checkedAt, standing);
  }

  #settled(world: string, path: string, state: DocumentState, checkedAt: number, standing: CheckStanding) {
    if (!standing.forgotten) this.#entries.set(`${world}\n${path}`, { state, checkedAt });
    return state;
  }

  #failed(
    world: string,
    path: string,
    previous: Entry | undefined,
    checkedAt: number,
    reason: string,
    standing: CheckStanding,
  ): DocumentState {
    this.#onCheckFailed?.(world, path, reason);
    const state: DocumentState = previous?.state ?? { kind: 'unknown', reason };
    // Throttled like a success, so a world that is down is not asked on every call.
    if (!standing.forgotten) this.#entries.set(`${world}\n${path}`, { state, checkedAt });
    return state;
  }
}
