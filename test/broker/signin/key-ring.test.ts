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

describe('signing key ring with a configured next key (oidc.nextBrokerSigningKey)', () => {
  const keysDocument = async (store: MemoryStateStore) =>
    JSON.parse((await store.read('signing_keys.json'))!.toString()) as Record<string, unknown>;

  it('on promotion of the configured next key, trusts the old current one for one token lifetime', async () => {
    const store = new MemoryStateStore();
    const [a, x, y] = [generateSigningKeyPem(), generateSigningKeyPem(), generateSigningKeyPem()];
    let now = 0;
    await loadKeyRing({ currentPem: a, nextPem: x, store, previousTrustMs: 900_000, now: () => now });
    // The operator promotes as docs/signin.md says: X becomes current, a new Y is the next key.
    const promoted = await loadKeyRing({ currentPem: x, nextPem: y, store, previousTrustMs: 900_000, now: () => now });
    const oldKid = loadSigningKey(a).kid;
    assert.equal(promoted.previous?.kid, oldKid);
    assert.equal(promoted.previousUntil, 900_000);
    assert.ok(ringVerificationKeys(promoted, now).some((k) => k.kid === oldKid));
    // A restart within the window keeps trusting it.
    now = 1000;
    const restarted = await loadKeyRing({ currentPem: x, nextPem: y, store, previousTrustMs: 900_000, now: () => now });
    assert.ok(ringVerificationKeys(restarted, now).some((k) => k.kid === oldKid));
    now = 900_001;
    assert.ok(!ringVerificationKeys(restarted, now).some((k) => k.kid === oldKid), 'no longer after the window');
  });

  it('keeps no generated private key at rest: the stored next key is the configured one', async () => {
    const store = new MemoryStateStore();
    const [a, x] = [generateSigningKeyPem(), generateSigningKeyPem()];
    await loadKeyRing({ currentPem: a, nextPem: x, store, previousTrustMs: 1000 });
    assert.deepEqual(await keysDocument(store), { current: a, next: x });
  });

  it('a next key configured later replaces the generated one, so promoting it keeps the old key trusted', async () => {
    const store = new MemoryStateStore();
    const [a, x, y] = [generateSigningKeyPem(), generateSigningKeyPem(), generateSigningKeyPem()];
    await loadKeyRing({ currentPem: a, store, previousTrustMs: 900_000, now: () => 0 });
    await loadKeyRing({ currentPem: a, nextPem: x, store, previousTrustMs: 900_000, now: () => 0 });
    assert.equal((await keysDocument(store)).next, x);
    const promoted = await loadKeyRing({ currentPem: x, nextPem: y, store, previousTrustMs: 900_000, now: () => 0 });
    assert.equal(promoted.previous?.kid, loadSigningKey(a).kid);
  });

  it('a current key that was never the published next key trusts no previous key (a replacement, not a promotion)', async () => {
    const store = new MemoryStateStore();
    const [a, x, b] = [generateSigningKeyPem(), generateSigningKeyPem(), generateSigningKeyPem()];
    await loadKeyRing({ currentPem: a, nextPem: x, store, previousTrustMs: 900_000, now: () => 0 });
    const replaced = await loadKeyRing({ currentPem: b, nextPem: x, store, previousTrustMs: 900_000, now: () => 0 });
    assert.equal(replaced.previous, null);
  });
});
