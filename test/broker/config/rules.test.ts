import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parseBrokerConfig, type ConfigErrorCode } from '../../../src/broker/config/index.ts';
import { dialerSettingsOf } from '../../../src/broker/worlds/index.ts';
import { env, fileConfig, kubernetesConfig, p384Key } from './fixtures.ts';

/** Asserts the exact one-line message and code of a refused config. */
function refuses(
  text: string,
  code: ConfigErrorCode,
  message: string,
  environment: Record<string, string> = env,
): void {
  assert.throws(
    () => parseBrokerConfig(text, environment),
    (error: unknown) => {
      assert.equal((error as Error).message, message);
      assert.equal((error as { code: string }).code, code);
      assert.doesNotMatch((error as Error).message, /\n/);
      return true;
    },
  );
}

const withServer = (base: string, lines: string) =>
  base.replace('  publicURL: https://broker.example.com\n', `  publicURL: https://broker.example.com\n${lines}\n`);
const withWorldA = (lines: string) => fileConfig.replace('  - name: team-a\n', `  - name: team-a\n${lines}\n`);

describe('broker config: shape errors name the key path', () => {
  it('refuses an unknown key anywhere, as the Go decoder does', () => {
    refuses(`${fileConfig}extra: 1\n`, 'ERR_CONFIG_UNKNOWN_KEY', 'config: extra: unknown key');
    refuses(
      withServer(fileConfig, '  publicUrl: https://x.example.com'),
      'ERR_CONFIG_UNKNOWN_KEY',
      'config: server.publicUrl: unknown key',
    );
    refuses(
      withWorldA('    operations: [publish]'),
      'ERR_CONFIG_UNKNOWN_KEY',
      'config: worlds[0].operations: unknown key',
    );
  });

  it('refuses a missing required key', () => {
    refuses(fileConfig.replace('  addr: ":8080"\n', ''), 'ERR_CONFIG_REQUIRED', 'config: server.addr: is required');
    refuses(
      fileConfig.replace('  publicURL: https://broker.example.com\n', ''),
      'ERR_CONFIG_REQUIRED',
      'config: server.publicURL: is required',
    );
    refuses(fileConfig, 'ERR_CONFIG_REQUIRED', 'config: oidc.brokerSigningKey: is required', {});
    refuses(
      fileConfig.replace(/ {4}defaultToken:\n {6}paths: \["\/\*\*"\]\n {2}- name: team-b/, '  - name: team-b'),
      'ERR_CONFIG_REQUIRED',
      'config: worlds[0].defaultToken: is required',
    );
  });

  it('accepts a config without worlds when discovery will bring them', () => {
    const config = parseBrokerConfig(
      `${fileConfig.slice(0, fileConfig.indexOf('worlds:'))}worlds: []\ndiscovery: { enabled: true, namespaces: [team-a] }\n`,
      env,
    );
    assert.deepEqual(config.discovery, {
      enabled: true,
      namespaces: ['team-a'],
      clusterDomain: 'cluster.local',
      maxWorlds: 500,
    });
    assert.equal(config.worlds.length, 0);
  });

  it('refuses a config without worlds', () => {
    refuses(
      fileConfig.slice(0, fileConfig.indexOf('worlds:')),
      'ERR_CONFIG_REQUIRED',
      'config: worlds: is required: at least one world, unless discovery.enabled is true',
    );
    refuses(
      `${fileConfig.slice(0, fileConfig.indexOf('worlds:'))}worlds: []\n`,
      'ERR_CONFIG_REQUIRED',
      'config: worlds: is required: at least one world, unless discovery.enabled is true',
    );
  });

  it('refuses a value of the wrong type', () => {
    refuses(
      fileConfig.replace('backend: file', 'backend: [file]'),
      'ERR_CONFIG_INVALID',
      'config: storage.backend: must be one of "kubernetes", "file"',
    );
    refuses(
      `${fileConfig}rateLimit: { disabled: "yes" }\n`,
      'ERR_CONFIG_INVALID',
      'config: rateLimit.disabled: must be true or false',
    );
    refuses(
      `${fileConfig}worldDialer: { failureThreshold: 2.5 }\n`,
      'ERR_CONFIG_INVALID',
      'config: worldDialer.failureThreshold: must be a whole number',
    );
    refuses(
      `${fileConfig}worldDialer: { failureThreshold: 0 }\n`,
      'ERR_CONFIG_INVALID',
      'config: worldDialer.failureThreshold: must be at least 1',
    );
    refuses(
      `${fileConfig}rateLimit: { login: { burst: -1 } }\n`,
      'ERR_CONFIG_INVALID',
      'config: rateLimit.login.burst: must be 0 (the default) or more',
    );
  });

  it('takes trustForwardedFor as true, false or a count of proxies, and refuses anything else', () => {
    assert.equal(
      parseBrokerConfig(`${fileConfig}rateLimit: { trustForwardedFor: 2 }\n`, env).rateLimit.trustForwardedFor,
      2,
    );
    assert.equal(
      parseBrokerConfig(`${fileConfig}rateLimit: { trustForwardedFor: true }\n`, env).rateLimit.trustForwardedFor,
      true,
    );
    for (const bad of ['"yes"', '1.5', '-1', '17'])
      refuses(
        `${fileConfig}rateLimit: { trustForwardedFor: ${bad} }\n`,
        'ERR_CONFIG_INVALID',
        'config: rateLimit.trustForwardedFor: must be true, false or the number of proxies in front of the broker (0 to 16)',
      );
  });

  it('refuses a discovery.clusterDomain that is not a DNS name, and a blank oidc.clientID', () => {
    refuses(
      `${fileConfig}discovery: { clusterDomain: "a b/c" }\n`,
      'ERR_CONFIG_INVALID',
      'config: discovery.clusterDomain: must be a DNS name such as "cluster.local"',
    );
    assert.equal(
      parseBrokerConfig(`${fileConfig}discovery: { clusterDomain: corp.example }\n`, env).discovery.clusterDomain,
      'corp.example',
    );
    refuses(
      `${fileConfig}oidc: { issuer: "https://idp.example.com", clientID: "  " }\n`,
      'ERR_CONFIG_INVALID',
      'config: oidc.clientID: must not be empty or blank',
    );
  });

  it('refuses an unknown storage backend', () => {
    refuses(
      fileConfig.replace('backend: file', 'backend: redis'),
      'ERR_CONFIG_INVALID',
      'config: storage.backend: must be one of "kubernetes", "file"',
    );
  });

  it('refuses a bad duration, a negative one and a number', () => {
    refuses(
      withServer(fileConfig, '  idTokenTTL: 15 minutes'),
      'ERR_CONFIG_INVALID',
      'config: server.idTokenTTL: invalid duration "15 minutes": use Go syntax such as "250ms", "5m" or "2160h"',
    );
    refuses(
      withServer(fileConfig, '  idTokenTTL: -5m'),
      'ERR_CONFIG_INVALID',
      'config: server.idTokenTTL: must be 0 (the default) or more',
    );
    refuses(
      withServer(fileConfig, '  idTokenTTL: 900'),
      'ERR_CONFIG_INVALID',
      'config: server.idTokenTTL: must be a duration string such as "5m"',
    );
  });

  it('refuses a listen address that is not host:port', () => {
    refuses(
      fileConfig.replace('addr: ":8080"', 'addr: "8080"'),
      'ERR_CONFIG_INVALID',
      'config: server.addr: must be "host:port" (as ":8080" or "127.0.0.1:8080")',
    );
    refuses(
      fileConfig.replace('addr: ":8080"', 'addr: ":99999"'),
      'ERR_CONFIG_INVALID',
      'config: server.addr: has port 99999 outside 1-65535 (as ":8080" or "127.0.0.1:8080")',
    );
  });

  it('refuses a public URL that is not absolute http(s)', () => {
    refuses(
      fileConfig.replace('publicURL: https://broker.example.com', 'publicURL: broker.example.com'),
      'ERR_CONFIG_INVALID',
      'config: server.publicURL: must be an absolute http:// or https:// URL',
    );
    refuses(
      fileConfig.replace('publicURL: https://broker.example.com', 'publicURL: "https://broker.example.com/?x=1"'),
      'ERR_CONFIG_INVALID',
      'config: server.publicURL: must not carry a query or fragment',
    );
  });

  it('refuses an invalid world name', () => {
    refuses(
      fileConfig.replace('name: team-a', 'name: Team_A'),
      'ERR_CONFIG_INVALID',
      'config: worlds[0].name: invalid world name "Team_A": must be 1-63 characters of a-z, 0-9 and "-", not starting or ending with "-"',
    );
    refuses(
      fileConfig.replace('name: team-a', 'name: -team'),
      'ERR_CONFIG_INVALID',
      'config: worlds[0].name: invalid world name "-team": must be 1-63 characters of a-z, 0-9 and "-", not starting or ending with "-"',
    );
    refuses(
      fileConfig.replace('name: team-a', `name: ${'a'.repeat(64)}`),
      'ERR_CONFIG_INVALID',
      `config: worlds[0].name: invalid world name "${'a'.repeat(64)}": must be 1-63 characters of a-z, 0-9 and "-", not starting or ending with "-"`,
    );
  });

  it('refuses a hub that is not a world name, saying what a world name is', () => {
    for (const hub of ['Main', 'mark://root', 'team_a', '-main'])
      refuses(
        `${fileConfig}hub: "${hub}"\n`,
        'ERR_CONFIG_INVALID',
        `config: hub: invalid world name ${JSON.stringify(hub)}: must be 1-63 characters of a-z, 0-9 and "-", not starting or ending with "-"`,
      );
    refuses(`${fileConfig}hub: [root]\n`, 'ERR_CONFIG_INVALID', 'config: hub: must be a string');
  });

  it('refuses an empty allowlist entry, as the Go broker does', () => {
    refuses(
      withWorldA('    allow: { emails: ["  "] }'),
      'ERR_CONFIG_INVALID',
      'config: worlds[0].allow.emails[0]: must not be empty',
    );
    refuses(
      `${fileConfig}oidc: { allowDomains: [""] }\n`,
      'ERR_CONFIG_INVALID',
      'config: oidc.allowDomains[0]: must not be empty',
    );
  });

  it('refuses a write-token path glob the world would not load', () => {
    refuses(
      fileConfig.replace('paths: ["/**"]', 'paths: []'),
      'ERR_CONFIG_INVALID',
      'config: worlds[0].defaultToken.paths: must list at least one path pattern (e.g. "/**")',
    );
    refuses(
      fileConfig.replace('paths: ["/**"]', 'paths: ["docs/**"]'),
      'ERR_CONFIG_INVALID',
      'config: worlds[0].defaultToken.paths[0]: must start with "/"',
    );
    refuses(
      fileConfig.replace('paths: ["/**"]', 'paths: ["/docs**"]'),
      'ERR_CONFIG_INVALID',
      'config: worlds[0].defaultToken.paths[0]: must use "**" as a whole path segment ("/docs/**")',
    );
    refuses(
      fileConfig.replace('paths: ["/**"]', 'paths: ["/a/**/b/**"]'),
      'ERR_CONFIG_INVALID',
      'config: worlds[0].defaultToken.paths[0]: must contain "**" at most once',
    );
  });

  it('refuses a world address without a port and a non-mark public URL', () => {
    refuses(
      fileConfig.replace('internalAddress: 127.0.0.1:7001', 'internalAddress: 127.0.0.1'),
      'ERR_CONFIG_INVALID',
      'config: worlds[0].internalAddress: must be "host:port" (as "team-a.team-a.svc.cluster.local:6309")',
    );
    refuses(
      withWorldA('    publicURL: https://team-a.example.com'),
      'ERR_CONFIG_INVALID',
      'config: worlds[0].publicURL: must be a mark://host[:port] URL',
    );
  });

  it('refuses a signing key that is not P-256, without echoing it', () => {
    refuses(
      fileConfig,
      'ERR_CONFIG_INVALID',
      'config: oidc.brokerSigningKey (from BROKER_SIGNING_KEY): must be an EC P-256 key (ES256), not secp384r1',
      { BROKER_SIGNING_KEY: p384Key },
    );
    refuses(
      fileConfig,
      'ERR_CONFIG_INVALID',
      'config: oidc.brokerSigningKey (from BROKER_SIGNING_KEY): must be a PEM-encoded EC P-256 private key (PKCS#8 or SEC1)',
      { BROKER_SIGNING_KEY: 'not-a-key-hunter2' },
    );
  });

  it('refuses plain http for a non-loopback issuer', () => {
    refuses(
      `${fileConfig}oidc: { issuer: "http://idp.example.com", clientID: broker }\n`,
      'ERR_CONFIG_INVALID',
      'config: oidc.issuer: must use https (plain http is accepted only for loopback hosts)',
    );
    assert.equal(
      parseBrokerConfig(`${fileConfig}oidc: { issuer: "http://127.0.0.1:9000", clientID: broker }\n`, env).oidc.issuer,
      'http://127.0.0.1:9000',
    );
  });
});

describe('broker config: cross-field rules', () => {
  it('refuses a management listener on the issuer or MCP address', () => {
    refuses(
      withServer(fileConfig, '  management: { addr: ":8080" }'),
      'ERR_CONFIG_CONFLICT',
      'config: server.management.addr: must differ from server.addr (both are ":8080")',
    );
    refuses(
      withServer(fileConfig, '  management: { addr: "127.0.0.1:8081" }'),
      'ERR_CONFIG_CONFLICT',
      'config: server.management.addr: must differ from server.mcp.addr ("127.0.0.1:8081" and ":8081" take the same port)',
    );
  });
  it('refuses CORS credentials with the "*" origin on allowCredentials, as a conflict', () => {
    refuses(
      withServer(fileConfig, '  cors: { allowedOrigins: ["*"], allowCredentials: true }'),
      'ERR_CONFIG_CONFLICT',
      'config: server.cors.allowCredentials: cannot be true when server.cors.allowedOrigins has "*"',
    );
  });

  it('refuses an MCP listener on the management address', () => {
    refuses(
      withServer(fileConfig, '  mcp: { addr: ":8080" }'),
      'ERR_CONFIG_CONFLICT',
      'config: server.mcp.addr: must differ from server.addr (both are ":8080")',
    );
    refuses(
      withServer(fileConfig, '  mcp: { addr: "127.0.0.1:8080" }'),
      'ERR_CONFIG_CONFLICT',
      'config: server.mcp.addr: must differ from server.addr ("127.0.0.1:8080" and ":8080" take the same port)',
    );
  });

  it('accepts two listeners on the same port of different hosts, and two ephemeral ports', () => {
    const hosts = fileConfig.replace('addr: ":8080"', 'addr: "127.0.0.1:8080"\n  mcp: { addr: "127.0.0.2:8080" }');
    assert.equal(parseBrokerConfig(hosts, env).server.mcp.addr, '127.0.0.2:8080');
    const ephemeral = fileConfig.replace('addr: ":8080"', 'addr: "127.0.0.1:0"\n  mcp: { addr: "127.0.0.1:0" }');
    assert.equal(parseBrokerConfig(ephemeral, env).server.mcp.addr, '127.0.0.1:0');
  });

  it('refuses an ID-token lifetime not shorter than the refresh-token lifetime', () => {
    refuses(
      withServer(fileConfig, '  idTokenTTL: 2h\n  refreshTokenTTL: 2h'),
      'ERR_CONFIG_CONFLICT',
      'config: server.idTokenTTL: must be shorter than server.refreshTokenTTL (2h0m0s is not less than 2h0m0s)',
    );
  });

  it('refuses a device poll interval not shorter than the device code lifetime', () => {
    refuses(
      withServer(fileConfig, '  deviceCodeTTL: 5s'),
      'ERR_CONFIG_CONFLICT',
      'config: server.devicePollInterval: must be shorter than server.deviceCodeTTL (5s is not less than 5s)',
    );
  });

  it('refuses a world attempt timeout not shorter than the call budget, and derives half of it by default', async () => {
    refuses(
      `${fileConfig}worldDialer: { requestTimeout: 4s, attemptTimeout: 4s }\n`,
      'ERR_CONFIG_CONFLICT',
      'config: worldDialer.attemptTimeout: must be shorter than worldDialer.requestTimeout (4s is not less than 4s)',
    );
    const settings = await dialerSettingsOf(
      parseBrokerConfig(`${fileConfig}worldDialer: { requestTimeout: 4s }\n`, env),
    );
    assert.deepEqual([settings.requestTimeoutMs, settings.attemptTimeoutMs], [4000, 2000]);
  });

  it('refuses a first-mint initial backoff above its maximum', () => {
    refuses(
      withServer(fileConfig, '  mcp: { firstMintInitialBackoff: 10s }'),
      'ERR_CONFIG_CONFLICT',
      'config: server.mcp.firstMintInitialBackoff: must not exceed server.mcp.firstMintMaxBackoff (10s > 8s)',
    );
  });

  it('refuses a shared per-subject call bound above the bound alone', () => {
    refuses(
      withServer(fileConfig, '  mcp: { callsPerSubject: 2, callsPerSubjectShared: 3 }'),
      'ERR_CONFIG_CONFLICT',
      'config: server.mcp.callsPerSubjectShared: must not exceed server.mcp.callsPerSubject (3 > 2): it is the bound while others are active',
    );
  });

  it('refuses one MCP TLS file without the other', () => {
    refuses(
      withServer(fileConfig, '  mcp: { tls: { certFile: /tls/cert.pem } }'),
      'ERR_CONFIG_REQUIRED',
      'config: server.mcp.tls.keyFile: is required when server.mcp.tls.certFile is set (both or neither)',
    );
    refuses(
      withServer(fileConfig, '  mcp: { tls: { keyFile: /tls/key.pem } }'),
      'ERR_CONFIG_REQUIRED',
      'config: server.mcp.tls.certFile: is required when server.mcp.tls.keyFile is set (both or neither)',
    );
  });

  it('refuses an issuer without its client id, and client settings without an issuer', () => {
    refuses(
      `${fileConfig}oidc: { issuer: "https://idp.example.com" }\n`,
      'ERR_CONFIG_REQUIRED',
      "config: oidc.clientID: is required when oidc.issuer is set (it is the audience of the issuer's ID tokens)",
    );
    refuses(
      `${fileConfig}oidc: { clientID: broker }\n`,
      'ERR_CONFIG_CONFLICT',
      'config: oidc.clientID: needs oidc.issuer',
    );
    refuses(
      fileConfig,
      'ERR_CONFIG_CONFLICT',
      'config: oidc.clientSecret (from OIDC_CLIENT_SECRET): needs oidc.issuer',
      { ...env, OIDC_CLIENT_SECRET: 'x' },
    );
  });

  it('refuses a CA file together with insecureSkipVerify', () => {
    refuses(
      `${fileConfig}worldDialer: { caFile: /ca.pem, insecureSkipVerify: true }\n`,
      'ERR_CONFIG_CONFLICT',
      'config: worldDialer.caFile: cannot be combined with worldDialer.insecureSkipVerify',
    );
  });

  it('refuses a sweeper interval above 24h', () => {
    refuses(
      `${fileConfig}sweeper: { interval: 25h }\n`,
      'ERR_CONFIG_CONFLICT',
      'config: sweeper.interval: must be at most 24h',
    );
  });

  it('refuses a duplicate world name', () => {
    refuses(
      fileConfig.replace('name: team-b', 'name: team-a'),
      'ERR_CONFIG_CONFLICT',
      'config: worlds[1].name: duplicate world name "team-a"',
    );
  });

  it('refuses file storage without its directory or a world without tokensFile or internalAddress', () => {
    refuses(
      fileConfig.replace('  dir: /var/lib/demarkus-broker\n', ''),
      'ERR_CONFIG_REQUIRED',
      'config: storage.dir: is required when storage.backend is "file"',
    );
    refuses(
      fileConfig.replace('    tokensFile: /srv/team-b/tokens.toml\n', ''),
      'ERR_CONFIG_REQUIRED',
      'config: worlds[1].tokensFile: is required when storage.backend is "file"',
    );
    refuses(
      fileConfig.replace('    internalAddress: 127.0.0.1:7001\n', ''),
      'ERR_CONFIG_REQUIRED',
      'config: worlds[0].internalAddress: is required when storage.backend is "file"',
    );
  });

  it('refuses kubernetes storage without the broker namespace, a world namespace or tokens Secret', () => {
    refuses(
      kubernetesConfig.replace('  brokerNamespace: demarkus\n', ''),
      'ERR_CONFIG_REQUIRED',
      'config: server.brokerNamespace: is required when storage.backend is "kubernetes"',
    );
    refuses(
      kubernetesConfig.replace('    namespace: root\n', ''),
      'ERR_CONFIG_REQUIRED',
      'config: worlds[0].namespace: is required when storage.backend is "kubernetes"',
    );
    refuses(
      kubernetesConfig.replace('    tokensSecret: root-tokens\n', ''),
      'ERR_CONFIG_REQUIRED',
      'config: worlds[0].tokensSecret: is required when storage.backend is "kubernetes"',
    );
  });

  it('refuses two worlds sharing a tokens file, or a tokens file inside the broker state', () => {
    refuses(
      fileConfig.replace('/srv/team-b/tokens.toml', '/srv/team-a/tokens.toml'),
      'ERR_CONFIG_CONFLICT',
      'config: worlds[1].tokensFile: collides with the tokensFile of world "team-a"',
    );
    refuses(
      fileConfig.replace('/srv/team-a/tokens.toml', '/var/lib/demarkus-broker/demarkus-broker-write-token-team-b.json'),
      'ERR_CONFIG_CONFLICT',
      'config: worlds[0].tokensFile: collides with the write-token state of world "team-b"',
    );
  });

  it('refuses duplicate web client ids', () => {
    const client = `  - clientID: web\n    clientSecretHash: "${'a'.repeat(64)}"\n    redirectURIs: [https://web.example.com/cb]\n`;
    refuses(
      `${fileConfig}webClients:\n${client}${client}`,
      'ERR_CONFIG_CONFLICT',
      'config: webClients[1].clientID: duplicate clientID "web"',
    );
  });

  it('refuses a web client bearer other than access_token or id_token', () => {
    const client = `  - clientID: web\n    clientSecretHash: "${'a'.repeat(64)}"\n    redirectURIs: [https://web.example.com/cb]\n    bearer: jwt\n`;
    refuses(
      `${fileConfig}webClients:\n${client}`,
      'ERR_CONFIG_INVALID',
      'config: webClients[0].bearer: must be one of access_token, id_token',
    );
  });
});
