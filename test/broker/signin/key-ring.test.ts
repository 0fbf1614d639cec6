import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { loadKeyRing, ringJwks, ringVerificationKeys } from '../../../src/broker/auth/key-ring.ts';
import { generateSigningKeyPem, loadSigningKey } from '../../../src/broker/auth/signing-key.ts';
import { MemoryStateStore } from '../../../src/broker/state/index.ts';

describe('signing key ring', () => {
  it('generates a next key once and keeps it in durable state, so every replica publishes the same', async () => {
    const store = new MemoryStateStore();
    const currentPem = generateSigningKeyPem();
    const a = await loadKeyRing({ currentPem, store, previousTrustMs: 1000 });
    const b = await loadKeyRing({ currentPem, store, previousTrustMs: 1000 });
    assert.ok(a.next);
    assert.equal(a.next.kid, b.next!.kid);
    assert.notEqual(a.next.kid, a.current.kid);
    assert.deepEqual(
      ringJwks(a).keys.map((k) => k.kid),
      [a.current.kid, a.next.kid],
    );
  });

  it('on promotion of the next key, makes a new next key and trusts the old current one for one token lifetime', async () => {
    const store = new MemoryStateStore();
    let now = 0;
    const first = await loadKeyRing({
      currentPem: generateSigningKeyPem(),
      store,
      previousTrustMs: 900_000,
      now: () => now,
    });
    const nextPem = (await store.read('signing_keys.json'))!.toString();
    const promotedPem = JSON.parse(nextPem).next as string;
    const promoted = await loadKeyRing({ currentPem: promotedPem, store, previousTrustMs: 900_000, now: () => now });
    assert.equal(promoted.current.kid, first.next!.kid);
    assert.notEqual(promoted.next!.kid, first.next!.kid);
    assert.equal(promoted.previous?.kid, first.current.kid);
    assert.ok(ringVerificationKeys(promoted, now).some((k) => k.kid === first.current.kid));
    now = 900_001;
    assert.ok(
      !ringVerificationKeys(promoted, now).some((k) => k.kid === first.current.kid),
      'no longer after its tokens expired',
    );
  });

  it('uses a configured next key as is', async () => {
    const nextPem = generateSigningKeyPem();
    const ring = await loadKeyRing({
      currentPem: generateSigningKeyPem(),
      nextPem,
      store: new MemoryStateStore(),
      previousTrustMs: 1000,
    });
    assert.equal(ring.next!.kid, loadSigningKey(nextPem).kid);
  });
});
