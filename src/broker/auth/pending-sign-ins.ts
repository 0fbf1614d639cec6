/**
 * Sign-ins anyone may start without signing in (a device authorization with
 * the built-in client, a pending authorization, an IdP round trip) each leave
 * a short-lived entry. Only the per-address login budget limited them, and an
 * attacker with many addresses could fill Redis until every write failed
 * (`maxmemory` with `noeviction`), signing everybody out. Each kind is now
 * admitted up to `state.maxPendingSignIns` (EphemeralStore.admit), and past it
 * the start is refused as RFC 6749 §4.1.2.1 `temporarily_unavailable` (503)
 * with the time until a place frees as Retry-After.
 */
import type { EphemeralStore, JsonValue } from '../state/index.ts';
import { OAuthError } from './oauth-error.ts';

export type PendingSignInKind = 'device' | 'authz' | 'round-trip';

export async function admitPendingSignIn(
  store: EphemeralStore,
  kind: PendingSignInKind,
  entry: { key: string; value: JsonValue; ttlMs: number },
): Promise<void> {
  const admission = await store.admit(kind, entry.key, entry.value, entry.ttlMs);
  if (admission.admitted) return;
  throw new OAuthError(
    'temporarily_unavailable',
    'the sign-in service is at its bound of pending sign-ins (too many were started and not finished); try again shortly',
    {
      detail: `the bound of pending sign-ins of kind ${kind} is reached (state.maxPendingSignIns)`,
      retryAfterSeconds: Math.max(1, Math.ceil(admission.retryAfterMs / 1000)),
    },
  );
}
