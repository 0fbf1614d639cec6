/**
 * An update that tells its caller what happened (a device poll's outcome, a
 * grant settled, a code redeemed). `EphemeralStore.update` may run its change
 * more than once, and in Redis a run whose compare-and-set lost may be
 * followed by a read that finds the entry gone (evicted under `volatile-ttl`,
 * or expired): nothing was applied and `update` returns null, though a change
 * already ran on the value that vanished. A caller that kept the outcome of
 * that run would report an approval or a redemption that never happened, and
 * the losing racer of two polls would issue tokens too
 * (test/security/update-vanished-entry.test.ts). So the outcome is taken from
 * the last run only when the update returned a value (that run is the one
 * applied, or one that left the entry as it was), and is `absent` otherwise.
 */
import type { EphemeralStore, JsonValue } from './ephemeral-store.ts';

/** What one run of a change decided: the caller's outcome, and the value to store (`undefined`: leave it). */
export type Decision<T> = { outcome: T; next: JsonValue | undefined };

export async function updateDeciding<T>(
  store: EphemeralStore,
  key: string,
  decide: (current: JsonValue) => Decision<T>,
  absent: T,
): Promise<T> {
  let decided: T = absent;
  const after = await store.update(key, (current) => {
    const decision = decide(current);
    decided = decision.outcome;
    return decision.next;
  });
  return after === null ? absent : decided;
}
