import { randomUUID } from 'node:crypto';
import { subscribedResourcesKey } from './resource-subscribe.ts';
import type { BoundedSessionState } from './session-state.ts';
import type { SharedSessions, SubscriptionReservation } from './shared-sessions.ts';

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
 *
 * Each place in the bound holds the token of the reservation that took it.
 * A place this copy gives up while Redis does not answer (an unsubscribe
 * whose save failed, a subscribe refused here whose release failed) is not
 * forgotten: it is kept with its token and sent with this copy's next save
 * or reservation, and Redis removes it only while it still holds that token,
 * so a subscribe of the same URI since, through any replica, keeps its place
 * (docs/decisions.md, "A place Redis did not take back is given back later,
 * only while it holds the token it had"). They are at most the places the
 * session held when Redis stopped answering, since none is taken meanwhile.
 */
export class SharedMemory {
  #revision: number;
  /** The session's subscriptions as this copy last read or saved them in Redis, each with its place's token. */
  #saved = new Map<string, string>();
  /** The places this copy's reservations added since its last save or read, by URI: the token each holds. */
  readonly #taken = new Map<string, string>();
  /** Of those, the ones a save found confirmed on this copy and Redis did not answer: the client may drop them before a save goes through. */
  readonly #confirmedUnsaved = new Map<string, string>();
  /** The places to give back that Redis did not answer for yet, by URI: the token each held here. */
  readonly #toGiveBack = new Map<string, string>();
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
      const added = current.filter((uri) => !this.#saved.has(uri));
      const removed = [...this.#saved.keys()].filter((uri) => !current.includes(uri));
      // A place this copy took and confirmed, and no longer holds: its save failed, then the client dropped it.
      // (A place taken and not confirmed yet may be a subscribe still under way: its request gives it back if
      // this copy refuses it, resource-subscribe.ts.)
      for (const [uri, token] of this.#confirmedUnsaved) if (!current.includes(uri)) this.#toGiveBack.set(uri, token);
      const givenBack = [...this.#toGiveBack];
      if (!state.changed && added.length === 0 && removed.length === 0 && givenBack.length === 0) return false;
      const before = this.#revision;
      let revision: number | null;
      try {
        revision = await directory.saveState(id, state.snapshot(subscribedResourcesKey), removed, givenBack);
      } catch (error) {
        // Sent again later, only while each place holds the token it has here: by then the client may have
        // subscribed to the URI again through another replica (test/broker/http/shared-subscriptions-outage.test.ts).
        for (const uri of removed) this.#toGiveBack.set(uri, this.#saved.get(uri)!);
        for (const uri of removed) this.#saved.delete(uri);
        for (const uri of added) if (this.#taken.has(uri)) this.#confirmedUnsaved.set(uri, this.#taken.get(uri)!);
        throw error;
      }
      this.#toGiveBack.clear();
      this.#confirmedUnsaved.clear();
      if (revision === null) return false;
      this.#saved = new Map(current.map((uri) => [uri, this.#taken.get(uri) ?? this.#saved.get(uri) ?? '']));
      for (const uri of current) this.#taken.delete(uri);
      // The save adds no subscription (each was reserved in Redis before this copy confirmed it), so one this
      // copy added and Redis no longer holds was dropped since, through another replica; reading the saved
      // set again lets Redis decide (test/security/subscription-cap-race.test.ts).
      if (revision === before + 1 && added.length === 0) this.#revision = revision;
      else await this.#load(directory, id, state);
      return added.length > 0 || removed.length > 0 || givenBack.length > 0;
    });
  }

  /**
   * Takes `uri`'s place in the session's bound (`SharedSessions.reserveSubscription`),
   * giving back first the places this copy still has to; the token lets
   * `giveBack` return the place if this copy then refuses the subscribe.
   */
  reserve(
    directory: SharedSessions,
    id: string,
    uri: string,
    limit: number,
  ): Promise<{ reservation: SubscriptionReservation; token: string }> {
    return this.#inTurn(async () => {
      const token = randomUUID();
      const givenBack = [...this.#toGiveBack];
      const reservation = await directory.reserveSubscription(id, uri, limit, token, givenBack);
      for (const [given] of givenBack) this.#toGiveBack.delete(given);
      // The place holds the new token now, also when it was held already: wherever this copy knows it.
      if (reservation === 'added' || reservation === 'held')
        for (const known of [this.#taken, this.#confirmedUnsaved, this.#saved])
          if (known.has(uri)) known.set(uri, token);
      // Only a place this reservation added is this copy's to give back; one held already may be another
      // replica's subscription that this copy has not read yet.
      if (reservation === 'added') this.#taken.set(uri, token);
      return { reservation, token };
    });
  }

  /**
   * Gives back the place `reserve` took with `token` (this copy refused the
   * subscribe); when Redis does not answer, it is kept and sent with the next
   * save or reservation, and the error is thrown.
   */
  giveBack(directory: SharedSessions, id: string, uri: string, token: string): Promise<void> {
    return this.#inTurn(async () => {
      for (const known of [this.#taken, this.#confirmedUnsaved, this.#saved])
        if (known.get(uri) === token) known.delete(uri);
      try {
        await directory.releaseSubscription(id, uri, token);
      } catch (error) {
        this.#toGiveBack.set(uri, token);
        throw error;
      }
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
    const unsaved = current.filter((uri) => !this.#saved.has(uri));
    const unsavedDrops = [...this.#saved.keys()].filter((uri) => !current.includes(uri));
    // A place given back elsewhere, or taken again since (it holds another token), is not this copy's to give back.
    for (const [uri, token] of this.#toGiveBack) if (stored.places.get(uri) !== token) this.#toGiveBack.delete(uri);
    const saved = new Map([...stored.places].filter(([uri]) => !this.#toGiveBack.has(uri)));
    const subscriptions = [...new Set([...saved.keys(), ...unsaved])].filter((uri) => !unsavedDrops.includes(uri));
    state.restore(stored.state ?? '[]', [[subscribedResourcesKey, subscriptions]]);
    this.#saved = saved;
    for (const uri of saved.keys()) {
      this.#taken.delete(uri);
      this.#confirmedUnsaved.delete(uri);
    }
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
