import { subscribedResourcesKey } from './resource-subscribe.ts';
import type { BoundedSessionState } from './session-state.ts';
import type { SharedSessions } from './shared-sessions.ts';

/**
 * What a replica's copy of a shared session (src/broker/http/shared-sessions.ts)
 * knows of the session's memory in Redis: the revision it holds, and the
 * resource subscriptions as it last read or wrote them there.
 *
 * The tools' memory (mark_fetch's "unchanged") is saved whole: it is a hint,
 * and the last writer wins. Subscriptions are not saved whole: each subscribe
 * took its place in the session's set in Redis before this copy confirmed it
 * (`reserveSubscription`), and a save sends only the URIs this copy dropped
 * since, so two replicas confirming a subscription at the same moment both
 * keep theirs (docs/decisions.md, "Resource subscriptions of a shared session
 * are a set in Redis"), and a save cannot bring back a subscription another
 * replica dropped after this copy took it. A save that was not the next
 * revision after this copy's (another replica saved in between) reads the
 * memory back, so this copy learns what the other one confirmed. Loads and
 * saves of one copy run one at a time: a load between a save's snapshot and
 * its reply would take back what the save had just sent.
 */
export class SharedMemory {
  #revision: number;
  #subscriptions: readonly string[] = [];
  #turn: Promise<unknown> = Promise.resolve();

  constructor(revision: number) {
    this.#revision = revision;
  }

  /** The revision of the saved memory this copy holds. */
  get revision(): number {
    return this.#revision;
  }

  /**
   * Saves what changed in `state`; true when its subscriptions changed (the
   * other replicas are then told to load them; those it added are in Redis
   * already, and were announced when they were reserved). Throws when Redis cannot
   * answer: what was not saved is sent with the next save.
   */
  save(directory: SharedSessions, id: string, state: BoundedSessionState): Promise<boolean> {
    return this.#inTurn(async () => {
      const current = subscriptionsIn(state);
      const added = current.filter((uri) => !this.#subscriptions.includes(uri));
      const removed = this.#subscriptions.filter((uri) => !current.includes(uri));
      if (!state.changed && added.length === 0 && removed.length === 0) return false;
      const before = this.#revision;
      const revision = await directory.saveState(id, state.snapshot(subscribedResourcesKey), removed);
      if (revision === null) return false;
      this.#subscriptions = current;
      // The save adds no subscription (each was reserved in Redis before this copy confirmed it), so one this
      // copy added and Redis no longer holds was dropped since, through another replica; reading the saved
      // set again lets Redis decide (test/security/subscription-cap-race.test.ts).
      if (revision === before + 1 && added.length === 0) this.#revision = revision;
      else await this.#load(directory, id, state);
      return added.length > 0 || removed.length > 0;
    });
  }

  /**
   * Replaces `state` with the memory as saved, keeping the subscriptions this
   * copy confirmed and has not saved yet (their request is still replying).
   */
  load(directory: SharedSessions, id: string, state: BoundedSessionState): Promise<void> {
    return this.#inTurn(() => this.#load(directory, id, state));
  }

  async #load(directory: SharedSessions, id: string, state: BoundedSessionState): Promise<void> {
    const stored = await directory.loadMemory(id);
    if (stored === null) return;
    const current = subscriptionsIn(state);
    const unsaved = current.filter((uri) => !this.#subscriptions.includes(uri));
    const unsavedDrops = this.#subscriptions.filter((uri) => !current.includes(uri));
    const subscriptions = [...new Set([...stored.subscriptions, ...unsaved])].filter(
      (uri) => !unsavedDrops.includes(uri),
    );
    state.restore(stored.state ?? '[]', [[subscribedResourcesKey, subscriptions]]);
    this.#subscriptions = stored.subscriptions;
    this.#revision = stored.revision;
  }

  #inTurn<T>(task: () => Promise<T>): Promise<T> {
    const run = this.#turn.then(task, task);
    this.#turn = run.catch(() => undefined);
    return run;
  }
}

function subscriptionsIn(state: BoundedSessionState): string[] {
  const uris = state.get<unknown>(subscribedResourcesKey);
  return Array.isArray(uris) ? uris.filter((uri): uri is string => typeof uri === 'string') : [];
}
