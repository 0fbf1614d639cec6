import { randomBytes } from 'node:crypto';
import { once, setMaxListeners } from 'node:events';
import { errorWithCode } from '../errors/coded-error.ts';
import type { Cursor } from '../protocol/watch.ts';

/**
 * A world's change hub (Mark SPEC §6.8): every committed write appends a hint
 * to a ring; each watcher reads at its own pace, and one the ring has lapped
 * is told to resync. A write never waits for a reader. The sequence restarts
 * with the process, so the epoch is random per hub.
 */
export type ChangeHint = { path: string; version: number; op: string; hash?: string; agent?: string; user?: string };
export type SequencedHint = ChangeHint & { seq: bigint };

export const defaultRingSize = 4096;

/** The cursor cannot be resumed (another epoch, a position never issued, or events already overwritten). */
export class ResyncNeeded extends errorWithCode('ERR_WATCH_RESYNC') {}
/** The hub closed under the subscriber (the world is shutting down). */
export class HubClosed extends errorWithCode('ERR_WATCH_CLOSED') {}

export class ChangeHub {
  readonly epoch: string;
  readonly #ring: (SequencedHint | undefined)[];
  #lastSeq = 0n;
  #closed = false;
  readonly #events = new EventTarget();

  constructor(options: { epoch?: string; ringSize?: number } = {}) {
    this.epoch = options.epoch ?? randomBytes(6).toString('hex');
    this.#ring = new Array(Math.max(1, options.ringSize ?? defaultRingSize));
    // Every waiting watcher listens here, and Node warns of a leak past 10
    // listeners. The count is bounded where watches are admitted
    // (`ChangeFeed.admit`, `maxWatches`), not here, so the warning would only
    // ever be a false alarm in a world's log.
    setMaxListeners(0, this.#events);
  }

  /** The newest event's cursor, seq 0 before any. */
  get head(): Cursor {
    return { epoch: this.epoch, seq: this.#lastSeq };
  }

  /** Appends a hint with the next sequence number and wakes every subscriber. */
  publish(hint: ChangeHint): Cursor {
    this.#lastSeq += 1n;
    this.#ring[this.#slot(this.#lastSeq)] = { ...hint, seq: this.#lastSeq };
    this.#notify();
    return this.head;
  }

  /** Ends every subscriber with HubClosed. */
  close(): void {
    this.#closed = true;
    this.#notify();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /**
   * A subscription over `scope` (`/` for everything, a prefix ending in `/`
   * for a subtree, else one document): from the head, or after `since`.
   */
  subscribe(scope: string, since: Cursor | null): Subscription {
    if (since === null) return new Subscription(this, scope, this.#lastSeq + 1n);
    if (since.epoch !== this.epoch || since.seq > this.#lastSeq || since.seq + 1n < this.#oldest())
      throw new ResyncNeeded('the cursor cannot be resumed');
    return new Subscription(this, scope, since.seq + 1n);
  }

  /** The hint at `seq`, or undefined when it is not written yet; ResyncNeeded when overwritten. */
  at(seq: bigint): SequencedHint | undefined {
    if (seq < this.#oldest()) throw new ResyncNeeded('the cursor cannot be resumed');
    return seq > this.#lastSeq ? undefined : this.#ring[this.#slot(seq)];
  }

  /** Resolves at the next publish or close; rejects when `signal` aborts first (and leaves nothing behind). */
  async changed(signal: AbortSignal): Promise<void> {
    await once(this.#events, 'change', { signal });
  }

  #oldest(): bigint {
    const size = BigInt(this.#ring.length);
    return this.#lastSeq > size ? this.#lastSeq - size + 1n : 1n;
  }

  #slot(seq: bigint): number {
    return Number(seq % BigInt(this.#ring.length));
  }

  #notify(): void {
    this.#events.dispatchEvent(new Event('change'));
  }
}

/** Why a watch was or was not given a slot. */
export type Admission = 'admitted' | 'pool-full' | 'address-full';

/** The share of the pool one caller address may hold by default: a quarter, so four callers are needed to fill it. */
function defaultMaxWatchesPerAddress(maxWatches: number): number {
  return Math.max(1, Math.floor(maxWatches / 4));
}

/**
 * The hub with what the WATCH handler needs around it: the heartbeat interval, a bound on open
 * streams, and each caller address's share of it (an IPv6 /64 is one address, `addressKey` in
 * src/transport/address-key.ts), so one caller cannot take the slots the broker's own watch needs.
 */
export class ChangeFeed {
  readonly hub: ChangeHub;
  readonly heartbeatMs: number;
  readonly maxWatches: number;
  readonly maxWatchesPerAddress: number;
  #open = 0;
  readonly #byAddress = new Map<string, number>();

  constructor(options: {
    heartbeatMs: number;
    maxWatches: number;
    maxWatchesPerAddress?: number;
    ringSize?: number;
    epoch?: string;
  }) {
    this.hub = new ChangeHub({
      ...(options.ringSize === undefined ? {} : { ringSize: options.ringSize }),
      ...(options.epoch === undefined ? {} : { epoch: options.epoch }),
    });
    this.heartbeatMs = options.heartbeatMs;
    this.maxWatches = options.maxWatches;
    this.maxWatchesPerAddress = options.maxWatchesPerAddress ?? defaultMaxWatchesPerAddress(options.maxWatches);
  }

  /** Takes one of the open-watch slots for `address` (undefined: a caller with none, in-process). */
  admit(address: string | undefined): Admission {
    if (this.#open >= this.maxWatches) return 'pool-full';
    const held = address === undefined ? 0 : (this.#byAddress.get(address) ?? 0);
    if (held >= this.maxWatchesPerAddress) return 'address-full';
    this.#open++;
    if (address !== undefined) this.#byAddress.set(address, held + 1);
    return 'admitted';
  }

  release(address: string | undefined): void {
    this.#open = Math.max(0, this.#open - 1);
    if (address === undefined) return;
    const held = (this.#byAddress.get(address) ?? 0) - 1;
    if (held > 0) this.#byAddress.set(address, held);
    else this.#byAddress.delete(address);
  }

  get open(): number {
    return this.#open;
  }
}

export class Subscription {
  readonly scope: string;
  readonly #hub: ChangeHub;
  #next: bigint;

  constructor(hub: ChangeHub, scope: string, next: bigint) {
    this.#hub = hub;
    this.scope = scope;
    this.#next = next;
  }

  /** Where to resume: the last event consumed, in scope or not, so a resume replays as little as possible. */
  get cursor(): Cursor {
    return { epoch: this.#hub.epoch, seq: this.#next - 1n };
  }

  /**
   * The next hint in scope, waiting up to the signal. Throws ResyncNeeded when
   * the ring lapped this reader, HubClosed after close, or the signal's reason.
   */
  async next(signal: AbortSignal): Promise<SequencedHint> {
    for (;;) {
      for (let hint = this.#hub.at(this.#next); hint !== undefined; hint = this.#hub.at(this.#next)) {
        this.#next += 1n;
        if (inScope(this.scope, hint.path)) return hint;
      }
      if (this.#hub.closed) throw new HubClosed('the change hub closed');
      signal.throwIfAborted();
      try {
        await this.#hub.changed(signal);
      } catch {
        throw signal.reason;
      }
    }
  }
}

export function inScope(scope: string, path: string): boolean {
  if (scope === '/') return true;
  if (scope.endsWith('/')) return path.startsWith(scope);
  return path === scope;
}
