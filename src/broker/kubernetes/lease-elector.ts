/**
 * Leader election on a coordination.k8s.io/v1 Lease, so that one broker
 * replica runs the sweeper (Go broker `sweeper.go`; the same algorithm as client-go's
 * leaderelection with a Lease lock): take the Lease when it is free or its
 * holder stopped renewing for `leaseDuration`, renew it every `retryPeriod`,
 * and step down when renewing fails for `renewDeadline` or someone else holds
 * it. Expiry is judged by when this replica last saw the record change, not
 * by the holder's clock, so clock skew between nodes does not matter. Writes
 * carry the resourceVersion that was read: two candidates racing for a free
 * Lease get one 200 and one 409.
 *
 * The leader never outlives its renew deadline: every API call is cut off
 * (its request aborted, its promise abandoned) when the deadline passes, and
 * the leader then steps down, so a renewal that hangs cannot keep it leading
 * while another replica takes the expired Lease. The deadline counts from the
 * start of the last successful renewal, which is no later than the write the
 * other replicas time the Lease from, and renewDeadline < leaseDuration.
 * Once leadership ends, the lead gets until that same deadline to return
 * before the elector moves on (and, stopping, releases the Lease).
 */
import type { CoordinationV1Api, V1Lease, V1LeaseSpec } from '@kubernetes/client-node';
import { boundedCall } from './bounded-call.ts';
import { systemClock, type Clock } from './clock.ts';
import { apiFailure, apiStatus } from './errors.ts';
import { formatMicroTime } from './micro-time.ts';

/** Go broker `sweeper.go`: LeaseDuration 15s, RenewDeadline 10s, RetryPeriod 2s. */
export const defaultLeaseTimings = { leaseDurationMs: 15_000, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 } as const;

export type LeaseElectorOptions = {
  coordination: CoordinationV1Api;
  namespace: string;
  /** `sweeper.leaseName`. */
  name: string;
  /** This replica (`POD_NAME`, else the host name). */
  identity: string;
  leaseDurationMs?: number;
  renewDeadlineMs?: number;
  retryPeriodMs?: number;
  clock?: Clock;
  /** Failed API calls while contending or renewing; the elector keeps going. */
  onError?: (error: unknown) => void;
};

type Attempt = 'held' | 'taken' | 'failed';

export class LeaseElector {
  readonly #options: Required<Omit<LeaseElectorOptions, 'onError'>> & Pick<LeaseElectorOptions, 'onError'>;
  #observed = '';
  #observedAt = 0;
  #leader = false;

  constructor(options: LeaseElectorOptions) {
    this.#options = { ...defaultLeaseTimings, clock: systemClock, ...options };
    if (this.#options.renewDeadlineMs >= this.#options.leaseDurationMs)
      throw new RangeError('renewDeadline must be shorter than leaseDuration');
  }

  get isLeader(): boolean {
    return this.#leader;
  }

  /**
   * Contends until `signal` aborts. While this replica holds the Lease, `lead`
   * runs with a signal that aborts when leadership ends (lost or stopping).
   * On stop the Lease is released, so another replica takes over at once.
   */
  async run(signal: AbortSignal, lead: (leadership: AbortSignal) => Promise<void> | void): Promise<void> {
    const { clock, retryPeriodMs } = this.#options;
    while (!signal.aborted) {
      const startedAt = clock.now();
      const deadline = this.#deadline(startedAt, signal);
      const attempt = await this.#tryAcquireOrRenew(deadline.signal).finally(deadline.dispose);
      if (attempt === 'held') {
        await this.#lead(signal, lead, startedAt);
        if (signal.aborted) return this.#release();
        continue;
      }
      if (!(await pause(clock, retryPeriodMs, signal))) return;
    }
  }

  async #lead(
    signal: AbortSignal,
    lead: (leadership: AbortSignal) => Promise<void> | void,
    acquiredAt: number,
  ): Promise<void> {
    const { clock, retryPeriodMs } = this.#options;
    const leadership = new AbortController();
    this.#leader = true;
    const leading = Promise.resolve()
      .then(() => lead(leadership.signal))
      .catch((error: unknown) => this.#options.onError?.(error));
    let renewedAt = acquiredAt;
    for (;;) {
      // One signal for the pause and the calls: it aborts at the renew deadline or on stop.
      // A failed renewal needs no deadline check of its own: should the deadline pass before its
      // timer fires, the next one, counted from the same `renewedAt`, is aborted when made
      // (`#deadline`), so the pause ends at once and the loop breaks without another call.
      const deadline = this.#deadline(renewedAt, signal);
      try {
        if (!(await pause(clock, retryPeriodMs, deadline.signal))) break;
        const startedAt = clock.now();
        const attempt = await this.#tryAcquireOrRenew(deadline.signal);
        if (deadline.signal.aborted || attempt === 'taken') break;
        if (attempt === 'held') renewedAt = startedAt;
      } finally {
        deadline.dispose();
      }
    }
    this.#leader = false;
    leadership.abort(new Error('leadership ended'));
    // The lead ends its calls on that signal; should it not, stop waiting at the renew deadline
    // (already passed when renewing failed), so that a stuck lead cannot keep the Lease from release.
    const waited = this.#deadline(renewedAt, new AbortController().signal);
    try {
      await Promise.race([leading, aborted(waited.signal)]);
    } finally {
      waited.dispose();
    }
  }

  /**
   * A signal that aborts `renewDeadline` after `from` (on this elector's clock)
   * or when `stop` does; `dispose` cancels its timer.
   */
  #deadline(from: number, stop: AbortSignal): { signal: AbortSignal; dispose: () => void } {
    const { clock, renewDeadlineMs } = this.#options;
    const passed = new AbortController();
    const timer = new AbortController();
    const remaining = from + renewDeadlineMs - clock.now();
    const expire = () => passed.abort(new RenewDeadlineError(renewDeadlineMs));
    if (remaining <= 0) expire();
    else clock.sleep(remaining, timer.signal).then(expire, () => {});
    return { signal: AbortSignal.any([passed.signal, stop]), dispose: () => timer.abort() };
  }

  /** Every API call of one attempt is cut off when `bound` aborts. */
  async #tryAcquireOrRenew(bound: AbortSignal): Promise<Attempt> {
    const { coordination, namespace, name, identity, clock } = this.#options;
    const now = clock.now();
    let lease: V1Lease;
    try {
      lease = await boundedCall(bound, (options) => coordination.readNamespacedLease({ namespace, name }, options));
    } catch (error) {
      if (apiStatus(error) === 404) return this.#create(now, bound);
      return this.#failed('read lease', error);
    }
    const spec = lease.spec ?? {};
    const seen = `${spec.holderIdentity ?? ''}|${String(spec.renewTime ?? '')}|${spec.leaseTransitions ?? 0}`;
    if (seen !== this.#observed) {
      this.#observed = seen;
      this.#observedAt = now;
    }
    const holder = spec.holderIdentity ?? '';
    const durationMs = (spec.leaseDurationSeconds ?? this.#options.leaseDurationMs / 1000) * 1000;
    if (holder !== '' && holder !== identity && this.#observedAt + durationMs > now) return 'taken';
    const ours = holder === identity;
    const next: V1LeaseSpec = {
      ...this.#spec(now),
      acquireTime: ours && spec.acquireTime !== undefined ? spec.acquireTime : (formatMicroTime(now) as never),
      leaseTransitions: (spec.leaseTransitions ?? 0) + (ours ? 0 : 1),
    };
    return this.#replace({ ...lease, spec: next }, bound);
  }

  async #create(now: number, bound: AbortSignal): Promise<Attempt> {
    const { coordination, namespace, name } = this.#options;
    const body: V1Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace },
      spec: { ...this.#spec(now), acquireTime: formatMicroTime(now) as never, leaseTransitions: 0 },
    };
    try {
      await boundedCall(bound, (options) => coordination.createNamespacedLease({ namespace, body }, options));
      return 'held';
    } catch (error) {
      return apiStatus(error) === 409 ? 'failed' : this.#failed('create lease', error);
    }
  }

  async #replace(lease: V1Lease, bound: AbortSignal): Promise<Attempt> {
    const { coordination, namespace, name } = this.#options;
    try {
      await boundedCall(bound, (options) =>
        coordination.replaceNamespacedLease({ namespace, name, body: lease }, options),
      );
      return 'held';
    } catch (error) {
      return apiStatus(error) === 409 ? 'failed' : this.#failed('update lease', error);
    }
  }

  /** client-go ReleaseOnCancel: an empty holder with a 1 s duration, so the next candidate need not wait. */
  async #release(): Promise<void> {
    const { coordination, namespace, name, identity, clock } = this.#options;
    // Bounded like a renewal, so that stopping never waits on a hung API server.
    const deadline = this.#deadline(clock.now(), new AbortController().signal);
    try {
      const lease = await boundedCall(deadline.signal, (options) =>
        coordination.readNamespacedLease({ namespace, name }, options),
      );
      if (lease.spec?.holderIdentity !== identity) return;
      const now = formatMicroTime(clock.now()) as never;
      const body: V1Lease = {
        ...lease,
        spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now },
      };
      await boundedCall(deadline.signal, (options) =>
        coordination.replaceNamespacedLease({ namespace, name, body }, options),
      );
    } catch (error) {
      this.#failed('release lease', error);
    } finally {
      deadline.dispose();
    }
  }

  #spec(now: number): V1LeaseSpec {
    const { identity, leaseDurationMs } = this.#options;
    // MicroTime strings go through the client untouched (micro-time.ts).
    return {
      holderIdentity: identity,
      leaseDurationSeconds: Math.max(1, Math.ceil(leaseDurationMs / 1000)),
      renewTime: formatMicroTime(now) as never,
    };
  }

  #failed(action: string, error: unknown): Attempt {
    const { namespace, name } = this.#options;
    this.#options.onError?.(apiFailure(`${namespace}/${name}`, action, error));
    return 'failed';
  }
}

/** The renew deadline passed before the API server answered. */
class RenewDeadlineError extends Error {
  constructor(renewDeadlineMs: number) {
    super(`no answer from the API server within the renew deadline (${renewDeadlineMs} ms)`);
    this.name = 'RenewDeadlineError';
  }
}

/** Resolves when `signal` aborts. */
function aborted(signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
}

/** `false` when the signal aborted during the pause. */
async function pause(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await clock.sleep(ms, signal);
    return !signal.aborted;
  } catch {
    return false;
  }
}
