/**
 * The short-lived records of the browser flows, in the short-lived store:
 * pending authorization requests (awaiting consent), IdP round trips (from
 * the redirect to the IdP until its callback) and authorization codes.
 */
import { randomSecret, sha256Hex } from '../secrets.ts';
import { newRefreshFamilyId } from '../tokens/refresh-tokens.ts';
import type { SignInIdentity } from '../sign-in-identity.ts';
import type { UpstreamRoundTrip } from '../upstream/upstream-idp.ts';
import { updateDeciding, type EphemeralStore } from '../../state/index.ts';
import { admitPendingSignIn } from '../pending-sign-ins.ts';
import { authorizationRequestRecord, codeRecord, readRecord, roundTripRecord, toJson } from '../sign-in-records.ts';
import type { AuthorizationRequest } from './authorization-request.ts';

export type RoundTrip = UpstreamRoundTrip &
  ({ kind: 'device'; deviceKey: string } | { kind: 'authorize'; request: AuthorizationRequest });

export type CodeRecord = {
  request: AuthorizationRequest;
  identity: SignInIdentity;
  authTime: number;
  issuedAt: number;
  /** `replayed`: spent, then presented again (RFC 6749 §4.1.2). */
  status: 'issued' | 'redeemed' | 'replayed';
  /**
   * The refresh family the code's redemption issues, revoked if the code is
   * replayed. Chosen as the code is spent, in the same atomic step, so a
   * replay at any moment after finds it.
   */
  family?: string;
};

export type RedeemOutcome =
  | { kind: 'redeemed'; record: CodeRecord & { family: string } }
  | { kind: 'replayed'; record: CodeRecord }
  | { kind: 'unknown' }
  | { kind: 'expired' };

export type FlowStateOptions = { pendingTtlMs: number; roundTripTtlMs: number; codeTtlMs: number; now?: () => number };

export class FlowState {
  readonly #store: EphemeralStore;
  readonly #options: FlowStateOptions;
  readonly #now: () => number;

  constructor(store: EphemeralStore, options: FlowStateOptions) {
    this.#store = store;
    this.#options = options;
    this.#now = options.now ?? Date.now;
  }

  async savePending(request: AuthorizationRequest): Promise<string> {
    const id = randomSecret(24);
    await admitPendingSignIn(this.#store, 'authz', {
      key: `authz:${id}`,
      value: toJson(request),
      ttlMs: this.#options.pendingTtlMs,
    });
    return id;
  }

  /** Single use: consent is given or refused once. */
  async takePending(id: string): Promise<AuthorizationRequest | null> {
    return readRecord(authorizationRequestRecord, 'authz', await this.#store.take(`authz:${id}`));
  }

  async peekPending(id: string): Promise<AuthorizationRequest | null> {
    return readRecord(authorizationRequestRecord, 'authz', await this.#store.get(`authz:${id}`));
  }

  async saveRoundTrip(roundTrip: RoundTrip): Promise<void> {
    await admitPendingSignIn(this.#store, 'round-trip', {
      key: `round-trip:${sha256Hex(roundTrip.state)}`,
      value: toJson(roundTrip),
      ttlMs: this.#options.roundTripTtlMs,
    });
  }

  async takeRoundTrip(state: string): Promise<RoundTrip | null> {
    return readRecord(roundTripRecord, 'round-trip', await this.#store.take(`round-trip:${sha256Hex(state)}`));
  }

  async issueCode(request: AuthorizationRequest, identity: SignInIdentity, authTime: number): Promise<string> {
    const code = randomSecret(32);
    const record: CodeRecord = { request, identity, authTime, issuedAt: this.#now(), status: 'issued' };
    // Kept past its validity so a replay is recognised and can revoke what the code issued.
    await this.#store.set(`code:${sha256Hex(code)}`, toJson(record), 10 * this.#options.codeTtlMs);
    return code;
  }

  /**
   * Spends the code and names the refresh family it will issue, in one atomic
   * step; a later redemption is a replay, and marks the code so.
   */
  async redeemCode(code: string): Promise<RedeemOutcome> {
    const now = this.#now();
    const family = newRefreshFamilyId();
    return updateDeciding<RedeemOutcome>(
      this.#store,
      `code:${sha256Hex(code)}`,
      (value) => {
        const record = readRecord(codeRecord, 'code', value)!;
        if (record.status !== 'issued')
          return {
            outcome: { kind: 'replayed', record },
            next: record.status === 'replayed' ? undefined : toJson({ ...record, status: 'replayed' }),
          };
        if (now - record.issuedAt >= this.#options.codeTtlMs) return { outcome: { kind: 'expired' }, next: undefined };
        const redeemed = { ...record, status: 'redeemed' as const, family };
        return { outcome: { kind: 'redeemed', record: redeemed }, next: toJson(redeemed) };
      },
      { kind: 'unknown' },
    );
  }

  /** Whether the code was presented again after it was spent (read after its redemption issued). */
  async wasReplayed(code: string): Promise<boolean> {
    return readRecord(codeRecord, 'code', await this.#store.get(`code:${sha256Hex(code)}`))?.status === 'replayed';
  }
}
