/**
 * Threat: a signing key retired by a promotion (often because it leaked) goes
 * on signing tokens the broker accepts. After a promotion the previous key is
 * trusted for one access-token lifetime (`previousUntil`), so tokens it signed
 * just before finish their life; after that, nothing it signs may pass.
 *
 * Both attacks below succeeded while the verifier copied the ring's keys once
 * at start-up (checked by running this file against it): the previous key
 * stayed trusted until the process restarted, although the JWKS had dropped
 * it, and a token it signed stayed cached as valid until its own expiry.
 *
 * The real key ring over a state store, promoted as the operator promotes it
 * (the published next key becomes `oidc.brokerSigningKey`), and the real
 * verifiers of the MCP endpoint and of userinfo.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BearerError } from '../../src/broker/auth/bearer-error.ts';
import { loadKeyRing, ringJwks, type SigningKeyRing } from '../../src/broker/auth/key-ring.ts';
import { mintBrokerToken } from '../../src/broker/auth/mint-broker-token.ts';
import { generateSigningKeyPem, loadSigningKey, type SigningKey } from '../../src/broker/auth/signing-key.ts';
import { userinfoVerifier } from '../../src/broker/auth/userinfo-endpoint.ts';
import { createBearerVerifier, type BearerVerifier } from '../../src/broker/auth/verify-bearer.ts';
import { withKeyRing } from '../../src/broker/http/signin/broker-sign-in.ts';
import { MemoryStateStore } from '../../src/broker/state/index.ts';

const issuer = 'https://broker.example';
const resource = 'https://broker.example/mcp';
const trustMs = 15 * 60_000;
// Now, not a pinned date: the ring's own start-up reads the real clock too.
const t0 = Date.now();

/** A ring just after the operator promoted the next key: the old current key is `previous`. */
async function promotedRing(): Promise<{ ring: SigningKeyRing; retired: SigningKey }> {
  const store = new MemoryStateStore();
  const firstPem = generateSigningKeyPem();
  await loadKeyRing({ currentPem: firstPem, store, previousTrustMs: trustMs, now: () => t0 - 60_000 });
  const { next } = JSON.parse((await store.read('signing_keys.json'))!.toString()) as { next: string };
  const ring = await loadKeyRing({ currentPem: next, store, previousTrustMs: trustMs, now: () => t0 });
  const retired = loadSigningKey(firstPem);
  assert.equal(ring.previous?.kid, retired.kid, 'the promotion keeps the old key as previous');
  return { ring, retired };
}

function verifiers(ring: SigningKeyRing, now: () => number): Record<string, BearerVerifier> {
  const currentDate = () => new Date(now());
  const endpoint = createBearerVerifier({
    ...withKeyRing(
      { broker: { publicKey: ring.current.publicKey, kid: ring.current.kid, issuer, audiences: [resource] } },
      ring,
      [],
    ),
    currentDate,
  });
  const userinfo = userinfoVerifier({ ring, issuer, resource, allowDomains: [] }, currentDate);
  return { '/mcp': endpoint, userinfo };
}

const signedBy = (key: SigningKey, at: number) =>
  mintBrokerToken({
    key,
    issuer,
    audience: resource,
    email: 'eve@example.com',
    ttlSeconds: 3600,
    now: () => new Date(at),
  });

const refusedAsUnknownKey = (error: unknown) => error instanceof BearerError && error.code === 'ERR_BEARER_INVALID';

describe('security: a retired signing key stops being trusted when its window ends, without a restart', () => {
  it('a token the retired key signs after the window is refused, as the JWKS no longer lists the key', async () => {
    const { ring, retired } = await promotedRing();
    let now = t0;
    for (const [name, verify] of Object.entries(verifiers(ring, () => now))) {
      now = t0;
      assert.equal((await verify(`Bearer ${await signedBy(retired, now)}`)).email, 'eve@example.com', name);
      now = t0 + trustMs + 1_000;
      assert.ok(!ringJwks(ring, now).keys.some((key) => key.kid === retired.kid), 'the JWKS dropped the key');
      await assert.rejects(verify(`Bearer ${await signedBy(retired, now)}`), refusedAsUnknownKey, name);
    }
  });

  it('a token verified during the window is not served from the cache after it', async () => {
    const { ring, retired } = await promotedRing();
    let now = t0;
    for (const [name, verify] of Object.entries(verifiers(ring, () => now))) {
      now = t0;
      const token = `Bearer ${await signedBy(retired, now)}`;
      assert.equal((await verify(token)).email, 'eve@example.com', name);
      now = t0 + trustMs + 1_000;
      await assert.rejects(verify(token), refusedAsUnknownKey, name);
    }
  });

  it('the current and next keys stay trusted after the window', async () => {
    const { ring } = await promotedRing();
    const now = t0 + trustMs + 1_000;
    for (const [name, verify] of Object.entries(verifiers(ring, () => now)))
      for (const key of [ring.current, ring.next!])
        assert.equal((await verify(`Bearer ${await signedBy(key, now)}`)).email, 'eve@example.com', name);
  });
});
