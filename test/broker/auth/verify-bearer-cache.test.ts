import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createBearerVerifier } from '../../../src/broker/auth/verify-bearer.ts';
import { generateSigningKeyPem, loadSigningKey } from '../../../src/broker/auth/signing-key.ts';
import { mintBrokerToken } from '../../../src/broker/auth/mint-broker-token.ts';
import { BearerError } from '../../../src/broker/auth/bearer-error.ts';

describe('bearer verification cache', () => {
  const key = loadSigningKey(generateSigningKeyPem());
  const trust = {
    publicKey: key.publicKey,
    kid: key.kid,
    issuer: 'https://issuer.example',
    audiences: ['https://mcp.example/mcp'],
  };
  const t0 = new Date('2026-12-02T12:00:00Z');

  it('refuses a verified token once it expires, although it was cached', async () => {
    let now = t0;
    const verify = createBearerVerifier({ broker: trust, currentDate: () => now });
    const token = await mintBrokerToken({
      key,
      issuer: trust.issuer,
      audience: trust.audiences[0]!,
      email: 'Alice@Example.com',
      ttlSeconds: 60,
      now: () => t0,
    });
    assert.equal((await verify(`Bearer ${token}`)).email, 'alice@example.com');
    assert.equal((await verify(`Bearer ${token}`)).email, 'alice@example.com');
    now = new Date(t0.getTime() + 60_000 + 61_000);
    await assert.rejects(
      verify(`Bearer ${token}`),
      (error: unknown) => error instanceof BearerError && error.code === 'ERR_BEARER_EXPIRED',
    );
  });

  it('never caches a token that failed verification', async () => {
    const verify = createBearerVerifier({ broker: trust });
    const token = await mintBrokerToken({
      key,
      issuer: trust.issuer,
      audience: 'https://other.example/mcp',
      email: 'a@example.com',
    });
    for (let i = 0; i < 2; i++) await assert.rejects(verify(`Bearer ${token}`), BearerError);
  });
});
