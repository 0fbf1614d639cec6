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
 */
import type { CoordinationV1Api, V1Lease, V1LeaseSpec } from '@kubernetes/client-node';
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
      if ((await this.#tryAcquireOrRenew()) === 'held') {
        await this.#lead(signal, lead);
        if (signal.aborted) return this.#release();
        continue;
      }
      if (!(await pause(clock, retryPeriodMs, signal))) return;
    }
  }

  async #lead(signal: AbortSignal, lead: (leadership: AbortSignal) => Promise<void> | void): Promise<void> {
    const { clock, retryPeriodMs, renewDeadlineMs } = this.#options;
    const leadership = new AbortController();
    this.#leader = true;
    const leading = Promise.resolve()
      .then(() => lead(leadership.signal))
      .catch((error: unknown) => this.#options.onError?.(error));
    let renewedAt = clock.now();
    while (await pause(clock, retryPeriodMs, signal)) {
      const attempt = await this.#tryAcquireOrRenew();
      if (attempt === 'held') renewedAt = clock.now();
      else if (attempt === 'taken' || clock.now() - renewedAt >= renewDeadlineMs) break;
    }
    this.#leader = false;
    leadership.abort(new Error('leadership ended'));
    await leading;
  }

  async #tryAcquireOrRenew(): Promise<Attempt> {
    const { coordination, namespace, name, identity, clock } = this.#options;
    const now = clock.now();
    let lease: V1Lease;
    try {
      lease = await coordination.readNamespacedLease({ namespace, name });
    } catch (error) {
      if (apiStatus(error) === 404) return this.#create(now);
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
    return this.#replace({ ...lease, spec: next });
  }

  async #create(now: number): Promise<Attempt> {
    const { coordination, namespace, name } = this.#options;
    const body: V1Lease = {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name, namespace },
      spec: { ...this.#spec(now), acquireTime: formatMicroTime(now) as never, leaseTransitions: 0 },
    };
    try {
      await coordination.createNamespacedLease({ namespace, body });
      return 'held';
    } catch (error) {
      return apiStatus(error) === 409 ? 'failed' : this.#failed('create lease', error);
    }
  }

  async #replace(lease: V1Lease): Promise<Attempt> {
    const { coordination, namespace, name } = this.#options;
    try {
      await coordination.replaceNamespacedLease({ namespace, name, body: lease });
      return 'held';
    } catch (error) {
      return apiStatus(error) === 409 ? 'failed' : this.#failed('update lease', error);
    }
  }

  /** client-go ReleaseOnCancel: an empty holder with a 1 s duration, so the next candidate need not wait. */
  async #release(): Promise<void> {
    const { coordination, namespace, name, identity, clock } = this.#options;
    try {
      const lease = await coordination.readNamespacedLease({ namespace, name });
      if (lease.spec?.holderIdentity !== identity) return;
      const now = formatMicroTime(clock.now()) as never;
      await coordination.replaceNamespacedLease({
        namespace,
        name,
        body: {
          ...lease,
          spec: { ...lease.spec, holderIdentity: '', leaseDurationSeconds: 1, renewTime: now, acquireTime: now },
        },
      });
    } catch (error) {
      this.#failed('release lease', error);
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

/** `false` when the signal aborted during the pause. */
async function pause(clock: Clock, ms: number, signal: AbortSignal): Promise<boolean> {
  try {
    await clock.sleep(ms, signal);
    return !signal.aborted;
  } catch {
    return false;
  }
}
