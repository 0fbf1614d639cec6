import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { envOverrides, parseBrokerConfig } from '../../../src/broker/config/index.ts';
import { fileConfig, sec1SigningKey as nextKey, signingKey } from './fixtures.ts';

const withOidc = `${fileConfig}oidc:\n  issuer: https://idp.example.com\n  clientID: broker\n  clientSecret: from-file\n`;

describe('broker config: environment overrides (Go broker config.go)', () => {
  it('takes the signing key and client secret from the Go broker variables', () => {
    const config = parseBrokerConfig(withOidc, { BROKER_SIGNING_KEY: signingKey, OIDC_CLIENT_SECRET: 'from-env' });
    assert.equal(config.oidc.brokerSigningKey, signingKey);
    assert.equal(config.oidc.clientSecret, 'from-env');
  });

  it('takes the key to rotate to from BROKER_NEXT_SIGNING_KEY (the chart fills it from a Secret)', () => {
    const config = parseBrokerConfig(fileConfig, { BROKER_SIGNING_KEY: signingKey, BROKER_NEXT_SIGNING_KEY: nextKey });
    assert.equal(config.oidc.nextBrokerSigningKey, nextKey);
    assert.throws(
      () => parseBrokerConfig(fileConfig, { BROKER_SIGNING_KEY: signingKey, BROKER_NEXT_SIGNING_KEY: 'not-a-key' }),
      {
        message:
          'config: oidc.nextBrokerSigningKey (from BROKER_NEXT_SIGNING_KEY): must be a PEM-encoded EC P-256 private key (PKCS#8 or SEC1)',
      },
    );
  });

  it('takes the sign-in cookie key from DEMARKUS_BROKER_COOKIE_KEY (the chart fills it from a Secret) and validates it', () => {
    const key = Buffer.alloc(32, 7).toString('base64');
    assert.equal(
      parseBrokerConfig(fileConfig, { BROKER_SIGNING_KEY: signingKey, DEMARKUS_BROKER_COOKIE_KEY: key }).server
        .cookieKey,
      key,
    );
    assert.throws(
      () => parseBrokerConfig(fileConfig, { BROKER_SIGNING_KEY: signingKey, DEMARKUS_BROKER_COOKIE_KEY: 'c2hvcnQ=' }),
      { message: /^config: server\.cookieKey \(from DEMARKUS_BROKER_COOKIE_KEY\): / },
    );
  });

  it('ignores a variable set to the empty string, keeping the file value', () => {
    const config = parseBrokerConfig(withOidc, { BROKER_SIGNING_KEY: signingKey, OIDC_CLIENT_SECRET: '' });
    assert.equal(config.oidc.clientSecret, 'from-file');
  });

  it('overrides listener addresses, public URLs and the storage directory', () => {
    const config = parseBrokerConfig(fileConfig, {
      BROKER_SIGNING_KEY: signingKey,
      DEMARKUS_BROKER_ADDR: '127.0.0.1:18080',
      DEMARKUS_BROKER_PUBLIC_URL: 'http://127.0.0.1:18080',
      DEMARKUS_BROKER_MCP_ADDR: '127.0.0.1:18081',
      DEMARKUS_BROKER_MCP_PUBLIC_URL: 'http://127.0.0.1:18081',
      DEMARKUS_BROKER_STORAGE_DIR: '/tmp/broker-state',
    });
    assert.equal(config.server.addr, '127.0.0.1:18080');
    assert.equal(config.server.publicURL, 'http://127.0.0.1:18080');
    assert.equal(config.server.mcp.addr, '127.0.0.1:18081');
    assert.equal(config.server.mcp.publicURL, 'http://127.0.0.1:18081');
    assert.equal(config.storage.dir, '/tmp/broker-state');
    assert.deepEqual(config.server.allowedHosts, ['127.0.0.1:18081', '127.0.0.1:18080']);
  });

  it('validates an overridden value like a file value and names the variable', () => {
    assert.throws(
      () => parseBrokerConfig(fileConfig, { BROKER_SIGNING_KEY: signingKey, DEMARKUS_BROKER_MCP_ADDR: ':8080' }),
      {
        code: 'ERR_CONFIG_CONFLICT',
        message:
          'config: server.mcp.addr (from DEMARKUS_BROKER_MCP_ADDR): must differ from server.addr (both are ":8080")',
      },
    );
    assert.throws(
      () => parseBrokerConfig(fileConfig, { BROKER_SIGNING_KEY: signingKey, DEMARKUS_BROKER_PUBLIC_URL: 'nope' }),
      {
        message:
          'config: server.publicURL (from DEMARKUS_BROKER_PUBLIC_URL): must be an absolute http:// or https:// URL',
      },
    );
  });

  it('never puts a secret value into an error message', () => {
    const secret = '-----BEGIN PRIVATE KEY-----\nhunter2hunter2\n-----END PRIVATE KEY-----\n';
    assert.throws(
      () => parseBrokerConfig(fileConfig, { BROKER_SIGNING_KEY: secret }),
      (error: unknown) => {
        assert.doesNotMatch((error as Error).message, /hunter2/);
        return true;
      },
    );
    const cookie = fileConfig.replace('  addr: ":8080"', '  addr: ":8080"\n  cookieKey: "hunter2!"');
    assert.throws(
      () => parseBrokerConfig(cookie, { BROKER_SIGNING_KEY: signingKey }),
      (error: unknown) => {
        assert.equal(
          (error as Error).message,
          'config: server.cookieKey: must be standard base64 of at least 16 bytes',
        );
        return true;
      },
    );
  });

  it('reads only the documented variables', () => {
    assert.deepEqual(
      envOverrides.map((o) => o.variable),
      [
        'OIDC_CLIENT_SECRET',
        'BROKER_SIGNING_KEY',
        'BROKER_NEXT_SIGNING_KEY',
        'DEMARKUS_BROKER_ADDR',
        'DEMARKUS_BROKER_PUBLIC_URL',
        'DEMARKUS_BROKER_MCP_ADDR',
        'DEMARKUS_BROKER_MCP_PUBLIC_URL',
        'DEMARKUS_BROKER_MANAGEMENT_ADDR',
        'DEMARKUS_BROKER_STORAGE_DIR',
        'DEMARKUS_BROKER_STATE_EPHEMERAL',
        'DEMARKUS_BROKER_REDIS_URL',
        'DEMARKUS_BROKER_REDIS_USERNAME',
        'DEMARKUS_BROKER_REDIS_PASSWORD',
        'DEMARKUS_BROKER_COOKIE_KEY',
      ],
    );
    const config = parseBrokerConfig(fileConfig, {
      BROKER_SIGNING_KEY: signingKey,
      DEMARKUS_BROKER_SERVER_ADDR: ':9999',
    });
    assert.equal(config.server.addr, ':8080');
  });
});
