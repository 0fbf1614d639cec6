import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { generateSigningKeyPem } from '../../../src/broker/auth/signing-key.ts';
import { ConfigError, parseBrokerConfig } from '../../../src/broker/config/index.ts';

const base = () => ({
  server: { addr: ':8080', publicURL: 'https://broker.example.com' },
  oidc: { brokerSigningKey: generateSigningKeyPem() },
  storage: { backend: 'file', dir: '/var/lib/broker' },
  worlds: [{ name: 'root', internalAddress: 'root:6309', tokensFile: '/t.toml', defaultToken: { paths: ['/**'] } }],
});

describe('sign-in config keys', () => {
  it('defaults registration, metadata documents, the refresh-token bound and the user-code limit', () => {
    const config = parseBrokerConfig(stringify(base()), {});
    assert.deepEqual(config.oauth, {
      registration: { disabled: false, maxClients: 1000, unusedTtl: 900_000 },
      clientMetadataDocuments: { disabled: false, allowLoopback: false },
      maxRefreshTokenFamilies: 5000,
      maxRefreshTokenFamiliesPerUser: 20,
    });
    assert.deepEqual(config.rateLimit.userCode, { perMinute: 10, burst: 5 });
    assert.equal(config.oidc.nextBrokerSigningKey, undefined);
  });

  it('accepts a next signing key and refuses one that is not P-256', () => {
    const next = generateSigningKeyPem();
    assert.equal(
      parseBrokerConfig(stringify({ ...base(), oidc: { ...base().oidc, nextBrokerSigningKey: next } }), {}).oidc
        .nextBrokerSigningKey,
      next,
    );
    assert.throws(
      () =>
        parseBrokerConfig(stringify({ ...base(), oidc: { ...base().oidc, nextBrokerSigningKey: 'not a key' } }), {}),
      (error: ConfigError) => /oidc\.nextBrokerSigningKey/.test(error.message),
    );
  });

  it('refuses unknown keys inside oauth', () => {
    assert.throws(
      () => parseBrokerConfig(stringify({ ...base(), oauth: { registration: { open: true } } }), {}),
      ConfigError,
    );
  });
});
