/**
 * Device authorization grants (RFC 8628) in the short-lived store. A grant is
 * keyed by the hash of its device code and found from the user code through
 * a second entry keyed by the user code's hash, so neither code is stored in
 * the clear and a user-code lookup takes the same time whatever is typed.
 *
 * States: pending → approved (user signed in) → redeemed (tokens handed out),
 * or pending → denied. Entries outlive `expires_in` by one more TTL so a late
 * poll is told `expired_token` rather than `invalid_grant`.
 */
import { randomSecret, sha256Hex, constantTimeEqual } from '../secrets.ts';
import type { SignInIdentity } from '../sign-in-identity.ts';
import { generateUserCode, normalizeUserCode } from '../user-code.ts';
import { updateDeciding, type EphemeralStore } from '../../state/index.ts';
import { deviceGrantRecord, readRecord, toJson } from '../sign-in-records.ts';
import { admitPendingSignIn } from '../pending-sign-ins.ts';

export type DeviceGrantStatus = 'pending' | 'approved' | 'denied' | 'redeemed';

export type DeviceGrant = {
  clientId: string;
  scope: string;
  resource: string;
  /** SHA-256 of the user code: the grant names its code without holding it (see the header). */
  userCodeHash: string;
  status: DeviceGrantStatus;
  expiresAt: number;
  /** RFC 8628 §3.5: grows by 5 s on every slow_down. */
  intervalMs: number;
  lastPollAt?: number;
  identity?: SignInIdentity;
};

export type PollOutcome =
  | { kind: 'approved'; grant: DeviceGrant }
  | {
      kind: 'authorization_pending' | 'slow_down' | 'access_denied' | 'expired_token' | 'invalid_grant';
      detail: string;
    };

export type DeviceGrantsOptions = { ttlMs: number; intervalMs: number; now?: () => number };

/** RFC 8628 §3.5: "the interval MUST be increased by 5 seconds for this and all subsequent requests". */
export const slowDownStepMs = 5000;

const deviceKey = (deviceCode: string) => `device:${sha256Hex(deviceCode)}`;
const userKey = (userCodeHash: string) => `user-code:${userCodeHash}`;

export class DeviceGrants {
  readonly #store: EphemeralStore;
  readonly #ttlMs: number;
  readonly #intervalMs: number;
  readonly #now: () => number;

  constructor(store: EphemeralStore, options: DeviceGrantsOptions) {
    this.#store = store;
    this.#ttlMs = options.ttlMs;
    this.#intervalMs = options.intervalMs;
    this.#now = options.now ?? Date.now;
  }

  get ttlMs(): number {
    return this.#ttlMs;
  }

  get intervalMs(): number {
    return this.#intervalMs;
  }

  async start(request: {
    clientId: string;
    scope: string;
    resource: string;
  }): Promise<{ deviceCode: string; userCode: string }> {
    const deviceCode = randomSecret(32);
    for (let attempt = 0; attempt < 5; attempt++) {
      const userCode = generateUserCode();
      const userCodeHash = sha256Hex(userCode);
      if ((await this.#store.get(userKey(userCodeHash))) !== null) continue;
      const grant: DeviceGrant = {
        ...request,
        userCodeHash,
        status: 'pending',
        expiresAt: this.#now() + this.#ttlMs,
        intervalMs: this.#intervalMs,
      };
      await admitPendingSignIn(this.#store, 'device', {
        key: deviceKey(deviceCode),
        value: toJson(grant),
        ttlMs: 2 * this.#ttlMs,
      });
      await this.#store.set(userKey(userCodeHash), deviceKey(deviceCode), this.#ttlMs);
      return { deviceCode, userCode };
    }
    throw new Error('could not allocate a unique user code');
  }

  /** The pending, unexpired grant a typed user code names, with the key to act on it and the code as normalized; null otherwise. */
  async findPending(typed: string): Promise<{ key: string; grant: DeviceGrant; userCode: string } | null> {
    const userCode = normalizeUserCode(typed);
    if (userCode === null) return null;
    const userCodeHash = sha256Hex(userCode);
    const key = await this.#store.get(userKey(userCodeHash));
    if (typeof key !== 'string') return null;
    const grant = readRecord(deviceGrantRecord, 'device', await this.#store.get(key));
    if (grant === null || grant.status !== 'pending' || grant.expiresAt <= this.#now()) return null;
    return constantTimeEqual(grant.userCodeHash, userCodeHash) ? { key, grant, userCode } : null;
  }

  async get(key: string): Promise<DeviceGrant | null> {
    return readRecord(deviceGrantRecord, 'device', await this.#store.get(key));
  }

  /** Approves a pending grant for `identity`; false when it is no longer pending. The user code is then spent. */
  async approve(key: string, identity: SignInIdentity): Promise<boolean> {
    return this.#settle(key, { status: 'approved', identity });
  }

  async deny(key: string): Promise<boolean> {
    return this.#settle(key, { status: 'denied' });
  }

  async #settle(key: string, change: Partial<DeviceGrant>): Promise<boolean> {
    const settled = await updateDeciding<DeviceGrant | null>(
      this.#store,
      key,
      (value) => {
        const grant = readRecord(deviceGrantRecord, 'device', value)!;
        if (grant.status !== 'pending' || grant.expiresAt <= this.#now()) return { outcome: null, next: undefined };
        const next = { ...grant, ...change };
        return { outcome: next, next: toJson(next) };
      },
      null,
    );
    if (settled === null) return false;
    await this.#store.delete(userKey(settled.userCodeHash));
    return true;
  }

  /** One poll of the token endpoint (RFC 8628 §3.4, §3.5). */
  async poll(deviceCode: string, clientId: string): Promise<PollOutcome> {
    const now = this.#now();
    return updateDeciding<PollOutcome>(
      this.#store,
      deviceKey(deviceCode),
      (value) => {
        const next = decide(readRecord(deviceGrantRecord, 'device', value)!, clientId, now);
        return { outcome: next.outcome, next: next.grant === undefined ? undefined : toJson(next.grant) };
      },
      { kind: 'invalid_grant', detail: 'unknown device_code' },
    );
  }
}

/** Pure: what one poll at `now` means for `grant`, and the grant to store after it. */
export function decide(
  grant: DeviceGrant,
  clientId: string,
  now: number,
): { outcome: PollOutcome; grant?: DeviceGrant } {
  if (grant.clientId !== clientId)
    return { outcome: { kind: 'invalid_grant', detail: 'device_code was issued to another client' } };
  if (grant.status === 'redeemed')
    return { outcome: { kind: 'invalid_grant', detail: 'device_code was already used' } };
  if (grant.expiresAt <= now && grant.status !== 'denied')
    return { outcome: { kind: 'expired_token', detail: 'device_code expired' } };
  if (grant.status === 'denied') return { outcome: { kind: 'access_denied', detail: 'the user denied the request' } };
  if (grant.lastPollAt !== undefined && now - grant.lastPollAt < grant.intervalMs) {
    return {
      outcome: { kind: 'slow_down', detail: 'polled faster than the interval' },
      grant: { ...grant, lastPollAt: now, intervalMs: grant.intervalMs + slowDownStepMs },
    };
  }
  if (grant.status === 'approved')
    return { outcome: { kind: 'approved', grant }, grant: { ...grant, status: 'redeemed', lastPollAt: now } };
  return {
    outcome: { kind: 'authorization_pending', detail: 'the user has not finished signing in' },
    grant: { ...grant, lastPollAt: now },
  };
}
