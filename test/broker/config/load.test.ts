import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError, loadBrokerConfig, parseBrokerConfig } from '../../../src/broker/config/index.ts';
import { env, fileConfig, kubernetesConfig, sec1SigningKey, signingKey } from './fixtures.ts';

const indent = (text: string, spaces: number) =>
  text
    .trim()
    .split('\n')
    .map((line) => ' '.repeat(spaces) + line)
    .join('\n');

describe('broker config: loading a complete file', () => {
  const full = `
server:
  addr: "127.0.0.1:8080"
  publicURL: "https://broker.example.com/"
  allowedOrigins: ["https://app.example.com"]
  allowedHosts: ["Broker.Example.com", "127.0.0.1:8081"]
  idTokenTTL: 10m
  refreshTokenTTL: 720h
  mcp:
    addr: "127.0.0.1:8081"
    publicURL: https://mcp.example.com
    tls: { certFile: /tls/cert.pem, keyFile: /tls/key.pem }
    firstMintMaxAttempts: 10
    firstMintInitialBackoff: 500ms
    firstMintMaxBackoff: 15s
    callsPerSubject: 6
    callsPerSubjectShared: 2
    queuedCallsPerSubject: 30
oidc:
  issuer: https://accounts.example.com
  clientID: broker
  clientSecret: s3cret
  redirectURL: https://broker.example.com/auth/callback
  allowDomains: [" Example.COM "]
  brokerSigningKey: |
${indent(sec1SigningKey, 4)}
storage: { backend: file, dir: /var/lib/broker }
worlds:
  - name: team-a
    tokensFile: /srv/a/tokens.toml
    internalAddress: "127.0.0.1:7001"
    serverName: localhost
    publicURL: mark://team-a.example.com:6309
    allow: { domains: [Example.com], groups: [" Writers "], emails: [Ann@Example.com] }
    defaultToken: { paths: ["/docs/**", "/index.md"] }
rateLimit:
  disabled: false
  tokens: { perMinute: 120, burst: 60 }
  login: { perMinute: 30, burst: 10 }
  trustForwardedFor: true
worldDialer:
  caFile: /tls/worlds-ca.pem
  dialTimeout: 2s
  requestTimeout: 4s
  attemptTimeout: 1500ms
  failureThreshold: 5
  cooldown: 30s
metrics: { enabled: false }
`;

  it('keeps every configured value, in milliseconds for durations', () => {
    const config = parseBrokerConfig(full, {});
    assert.equal(config.server.addr, '127.0.0.1:8080');
    assert.equal(config.server.idTokenTTL, 600_000);
    assert.equal(config.server.refreshTokenTTL, 2_592_000_000);
    assert.deepEqual(config.server.mcp, {
      addr: '127.0.0.1:8081',
      publicURL: 'https://mcp.example.com',
      tls: { certFile: '/tls/cert.pem', keyFile: '/tls/key.pem' },
      firstMintMaxAttempts: 10,
      firstMintInitialBackoff: 500,
      firstMintMaxBackoff: 15_000,
      callsPerSubject: 6,
      callsPerSubjectShared: 2,
      queuedCallsPerSubject: 30,
    });
    assert.deepEqual(config.rateLimit, {
      disabled: false,
      tokens: { perMinute: 120, burst: 60 },
      login: { perMinute: 30, burst: 10 },
      userCode: { perMinute: 10, burst: 5 },
      registration: { perMinute: 1, burst: 10 },
      trustForwardedFor: true,
    });
    assert.deepEqual(config.worldDialer, {
      insecureSkipVerify: false,
      caFile: '/tls/worlds-ca.pem',
      dialTimeout: 2_000,
      requestTimeout: 4_000,
      attemptTimeout: 1_500,
      failureThreshold: 5,
      cooldown: 30_000,
    });
    assert.equal(config.metrics.enabled, false);
    assert.equal(config.oidc.clientSecret, 's3cret');
    assert.equal(config.oidc.brokerSigningKey, `${sec1SigningKey.trim()}\n`);
  });

  it('normalises as the Go broker does: trailing slash, lower-cased allowlists', () => {
    const config = parseBrokerConfig(full, {});
    assert.equal(config.server.publicURL, 'https://broker.example.com');
    assert.deepEqual(config.oidc.allowDomains, ['example.com']);
    assert.deepEqual(config.worlds[0]?.allow, {
      domains: ['example.com'],
      groups: ['writers'],
      emails: ['ann@example.com'],
    });
    assert.deepEqual(config.server.allowedHosts, ['broker.example.com', '127.0.0.1:8081']);
    assert.deepEqual(config.server.allowedOrigins, ['https://app.example.com']);
  });

  it('keeps the world entry as configured', () => {
    const world = parseBrokerConfig(full, {}).worlds[0];
    assert.equal(world?.name, 'team-a');
    assert.equal(world?.serverName, 'localhost');
    assert.equal(world?.publicURL, 'mark://team-a.example.com:6309');
    assert.deepEqual(world?.defaultToken.paths, ['/docs/**', '/index.md']);
  });
});

describe('broker config: defaults', () => {
  it('fills in the Go broker defaults for a minimal kubernetes config', () => {
    const config = parseBrokerConfig(kubernetesConfig, env);
    assert.equal(config.storage.backend, 'kubernetes');
    assert.equal(config.server.mcp.addr, ':8081');
    assert.equal(config.server.management.addr, ':8090');
    assert.equal(config.server.idTokenTTL, 15 * 60_000);
    assert.equal(config.server.refreshTokenTTL, 2160 * 3_600_000);
    assert.equal(config.server.stateTTL, 5 * 60_000);
    assert.equal(config.server.deviceCodeTTL, 10 * 60_000);
    assert.equal(config.server.devicePollInterval, 5_000);
    assert.equal(config.server.refreshTokensSecret, 'demarkus-broker-refresh-tokens');
    assert.equal(config.server.insecureCookies, false);
    assert.deepEqual(
      [
        config.server.mcp.firstMintMaxAttempts,
        config.server.mcp.firstMintInitialBackoff,
        config.server.mcp.firstMintMaxBackoff,
      ],
      [6, 250, 8_000],
    );
    assert.deepEqual(config.rateLimit, {
      disabled: false,
      tokens: { perMinute: 120, burst: 60 },
      login: { perMinute: 20, burst: 5 },
      userCode: { perMinute: 10, burst: 5 },
      registration: { perMinute: 1, burst: 10 },
      trustForwardedFor: false,
    });
    assert.deepEqual(config.sweeper, { disabled: false, interval: 300_000, leaseName: 'demarkus-broker-sweeper' });
    assert.deepEqual(config.oidc.allowDomains, []);
    assert.deepEqual(config.webClients, []);
    assert.equal(config.metrics.enabled, true);
    assert.equal(config.hub, 'root', 'the hub world the graph seeds from and the publishing standard lives on');
  });

  it('names another hub world with hub, which need not be one of worlds[] (it may be discovered)', () => {
    assert.equal(parseBrokerConfig(`${kubernetesConfig}hub: main\n`, env).hub, 'main');
  });

  it('defaults our own dialer keys: 5s dial, 10s per call (0: half of it per attempt), 3 failures open the circuit for 5s', () => {
    assert.deepEqual(parseBrokerConfig(kubernetesConfig, env).worldDialer, {
      insecureSkipVerify: false,
      dialTimeout: 3_000,
      requestTimeout: 10_000,
      attemptTimeout: 0,
      failureThreshold: 3,
      cooldown: 5_000,
    });
  });

  it('derives the MCP public URL and the rebinding allowlists from the public URLs', () => {
    const config = parseBrokerConfig(kubernetesConfig, env);
    assert.equal(config.server.mcp.publicURL, 'https://broker.example.com');
    assert.deepEqual(config.server.allowedOrigins, ['https://broker.example.com']);
    assert.deepEqual(config.server.allowedHosts, ['broker.example.com']);
    const split = parseBrokerConfig(
      kubernetesConfig.replace(
        '  brokerNamespace',
        '  mcp: { publicURL: "http://127.0.0.1:8081/" }\n  brokerNamespace',
      ),
      env,
    );
    assert.equal(split.server.mcp.publicURL, 'http://127.0.0.1:8081');
    assert.deepEqual(split.server.allowedOrigins, ['http://127.0.0.1:8081', 'https://broker.example.com']);
    assert.deepEqual(split.server.allowedHosts, ['127.0.0.1:8081', 'broker.example.com']);
  });

  it('treats zero counts and zero durations as "use the default", as the Go broker does', () => {
    const config = parseBrokerConfig(
      `${kubernetesConfig.replace(
        '  brokerNamespace',
        '  idTokenTTL: 0s\n  mcp: { firstMintMaxAttempts: 0 }\n  brokerNamespace',
      )}rateLimit: { tokens: { perMinute: 0, burst: 0 } }\n`,
      env,
    );
    assert.equal(config.server.idTokenTTL, 900_000);
    assert.equal(config.server.mcp.firstMintMaxAttempts, 6);
    assert.deepEqual(config.rateLimit.tokens, { perMinute: 120, burst: 60 });
  });

  it('reads an explicit zero as zero where it is a meaningful wait: shutdown drain and grace, CORS preflight cache', () => {
    const config = parseBrokerConfig(
      kubernetesConfig.replace(
        '  brokerNamespace',
        '  shutdown: { drainDelay: 0s, timeout: 0s }\n  cors: { maxAge: 0s }\n  brokerNamespace',
      ),
      env,
    );
    assert.deepEqual(config.server.shutdown, { drainDelay: 0, timeout: 0 });
    assert.equal(config.server.cors.maxAge, 0);
    const absent = parseBrokerConfig(kubernetesConfig, env);
    assert.deepEqual(absent.server.shutdown, { drainDelay: 5_000, timeout: 20_000 }, 'absent keys keep their defaults');
    assert.equal(absent.server.cors.maxAge, 600_000);
    assert.throws(
      () =>
        parseBrokerConfig(
          kubernetesConfig.replace('  brokerNamespace', '  shutdown: { drainDelay: -1s }\n  brokerNamespace'),
          env,
        ),
      { message: 'config: server.shutdown.drainDelay: must be 0 or more' },
    );
  });

  it('reads blank values as unset, as the Go chart renders optional keys', () => {
    const chartRendered = `${kubernetesConfig.replace(
      '    tokensSecret: root-tokens',
      '    tokensSecret: root-tokens\n    publicURL: ""\n    internalAddress: ""\n    allow: { domains: [], groups: [], emails: [] }',
    )}oidc:\n  clientSecret: ""\n  brokerSigningKey: ""\n`;
    const world = parseBrokerConfig(chartRendered, env).worlds[0];
    assert.equal(world?.publicURL, undefined);
    assert.equal(world?.internalAddress, undefined);
  });

  it('accepts the Go sign-in keys so a Go broker config loads unchanged', () => {
    const goKeys =
      kubernetesConfig.replace(
        '  brokerNamespace: demarkus',
        '  brokerNamespace: demarkus\n  cookieKey: c2l4dGVlbi1ieXRlcy1rZXkh\n  stateTTL: 2m\n  insecureCookies: true\n  deviceCodeTTL: 15m\n  devicePollInterval: 3s\n  refreshTokensSecret: rt',
      ) +
      'sweeper: { disabled: true, interval: 1h, leaseName: sweep }\nwebClients:\n  - clientID: library-web\n    clientSecretHash: "' +
      'AB'.repeat(32) +
      '"\n    redirectURIs: [https://library.example.com/callback]\n';
    const config = parseBrokerConfig(goKeys, env);
    assert.equal(config.server.stateTTL, 120_000);
    assert.equal(config.server.devicePollInterval, 3_000);
    assert.equal(config.webClients[0]?.clientSecretHash, 'ab'.repeat(32));
    assert.equal(config.webClients[0]?.bearer, 'access_token', 'RFC-clean access tokens unless configured otherwise');
    assert.deepEqual(config.sweeper, { disabled: true, interval: 3_600_000, leaseName: 'sweep' });
  });
});

describe('broker config: reading the file', () => {
  it('loads a YAML file from disk', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'broker-config-'));
    try {
      const path = join(dir, 'config.yaml');
      await writeFile(path, fileConfig);
      const config = await loadBrokerConfig(path, env);
      assert.deepEqual(
        config.worlds.map((w) => w.name),
        ['team-a', 'team-b'],
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a missing file with ERR_CONFIG_READ', async () => {
    await assert.rejects(loadBrokerConfig('/nonexistent/broker.yaml', env), {
      code: 'ERR_CONFIG_READ',
      message: 'config: cannot read "/nonexistent/broker.yaml" (ENOENT)',
    });
  });

  it('reports a YAML syntax error by position, without quoting the line', () => {
    const text = 'server:\n  addr: ":8080"\noidc:\n  clientSecret: "hunter2-topsecret\n  other: [1\n';
    assert.throws(
      () => parseBrokerConfig(text, env),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        assert.equal(error.code, 'ERR_CONFIG_SYNTAX');
        assert.match(error.message, /^config: invalid YAML at line \d+, column \d+: [^\n]+$/);
        assert.doesNotMatch(error.message, /hunter2/);
        return true;
      },
    );
  });

  describe('a YAML error never echoes a value of the file (values may be secrets)', () => {
    // Each of these once printed part of the secret: the yaml library's messages quote the
    // offending source (an unresolved alias name, a block scalar header, a tag, an escape).
    const leaks: Record<string, string> = {
      'a value starting with * (an alias)': 'oidc:\n  clientSecret: *hunter2SECRET\n',
      'an alias name ending in :': 'oidc:\n  clientSecret: *hunter2SECRET:\n',
      'a merge key of an unknown anchor': 'oidc:\n  <<: *hunter2SECRET\n',
      'a value starting with | (a block scalar header)': 'oidc:\n  clientSecret: |hunter2SECRET\n',
      'a value starting with > (a folded block header)': 'oidc:\n  clientSecret: >hunter2SECRET\n',
      'a value with an undeclared tag handle': 'oidc:\n  clientSecret: !a!hunter2SECRET x\n',
      'a value starting with ! (a tag), which loaded as the text after it': 'oidc:\n  clientSecret: !hunter2SECRET x\n',
      'a bad escape in a double-quoted value': 'oidc:\n  clientSecret: "ab\\uhunter2SECRET"\n',
      'an ordered map with a duplicate key':
        'oidc:\n  clientSecret: !!omap [ {hunter2SECRET: 1}, {hunter2SECRET: 2} ]\n',
    };
    for (const [name, text] of Object.entries(leaks)) {
      it(name, () => {
        assert.throws(
          () => parseBrokerConfig(text, env),
          (error: unknown) => {
            assert.ok(error instanceof ConfigError, String(error));
            assert.equal(error.code, 'ERR_CONFIG_SYNTAX');
            assert.match(error.message, /^config: invalid YAML at line 2, column \d+: [^\n]+$/);
            assert.doesNotMatch(error.message, /hunt|SECRET/);
            return true;
          },
        );
      });
    }

    it('says what a leading * means and to quote it, at its line', () => {
      assert.throws(() => parseBrokerConfig('server:\n  addr: ":8080"\noidc:\n  clientSecret: *s3cret\n', env), {
        code: 'ERR_CONFIG_SYNTAX',
        message: 'config: invalid YAML at line 4, column 17: a value starting with `*` is a YAML alias; quote it',
      });
    });

    it('refuses an alias bomb as a syntax error, not a stray ReferenceError', () => {
      const bomb = [
        'a: &a [x, x, x, x, x, x, x, x, x, x]',
        'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
        'c: [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
        '',
      ].join('\n');
      assert.throws(() => parseBrokerConfig(bomb, env), {
        code: 'ERR_CONFIG_SYNTAX',
        message: 'config: invalid YAML: aliases expand to too many nodes (at most 100)',
      });
    });

    it('still resolves an alias whose anchor comes first', () => {
      const text = fileConfig.replace(
        '  publicURL: https://broker.example.com',
        '  publicURL: &url https://broker.example.com\n  mcp: { publicURL: *url }',
      );
      assert.equal(parseBrokerConfig(text, env).server.mcp.publicURL, 'https://broker.example.com');
    });
  });

  it('refuses duplicate keys as a syntax error', () => {
    assert.throws(() => parseBrokerConfig('server:\n  addr: ":8080"\n  addr: ":9090"\n', env), {
      code: 'ERR_CONFIG_SYNTAX',
      message: 'config: invalid YAML at line 3, column 3: Map keys must be unique',
    });
  });

  it('refuses a file that is not a map', () => {
    assert.throws(() => parseBrokerConfig('- a\n- b\n', env), {
      code: 'ERR_CONFIG_SYNTAX',
      message: 'config: the file must hold a YAML map of settings',
    });
  });

  it('reports the first missing key of an empty file', () => {
    assert.throws(() => parseBrokerConfig('', {}), {
      code: 'ERR_CONFIG_REQUIRED',
      message: 'config: server.addr: is required',
    });
  });

  it('accepts a SEC1 or PKCS#8 signing key', () => {
    assert.equal(
      parseBrokerConfig(kubernetesConfig, { BROKER_SIGNING_KEY: sec1SigningKey }).oidc.brokerSigningKey,
      sec1SigningKey,
    );
    assert.equal(
      parseBrokerConfig(kubernetesConfig, { BROKER_SIGNING_KEY: signingKey }).oidc.brokerSigningKey,
      signingKey,
    );
  });
});
