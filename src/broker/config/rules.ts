/**
 * Rules that tie several keys together, checked once every key has the right
 * shape. The first violation wins, in the order below, and is reported on the
 * key an operator has to change.
 */
import { join, resolve } from 'node:path';
import { formatGoDuration } from './duration.ts';
import { listenersCollide, parseListenAddress } from './host-port.ts';
import type { ParsedBrokerConfig } from './schema.ts';

export type RuleViolation = { path: Array<string | number>; message: string };

type Rule = (config: ParsedBrokerConfig) => RuleViolation | null;

const maxSweeperIntervalMs = 24 * 3_600_000;

/** File names of broker state under `storage.dir` (Go file backend layout). */
export const refreshTokensFileName = 'refresh_tokens.json';
export const writeTokenFileName = (world: string) => `demarkus-broker-write-token-${world}.json`;

const rules: Rule[] = [
  listenersDiffer,
  ({ server }) =>
    shorter(['server', 'idTokenTTL'], server.idTokenTTL, 'server.refreshTokenTTL', server.refreshTokenTTL),
  ({ server }) =>
    shorter(['server', 'devicePollInterval'], server.devicePollInterval, 'server.deviceCodeTTL', server.deviceCodeTTL),
  firstMintBackoffs,
  sharedCallBound,
  ({ worldDialer }) =>
    worldDialer.attemptTimeout === 0
      ? null
      : shorter(
          ['worldDialer', 'attemptTimeout'],
          worldDialer.attemptTimeout,
          'worldDialer.requestTimeout',
          worldDialer.requestTimeout,
        ),
  tlsPair,
  oidcIssuer,
  dialerTrust,
  ({ sweeper }) =>
    sweeper.interval > maxSweeperIntervalMs ? { path: ['sweeper', 'interval'], message: 'must be at most 24h' } : null,
  someWorld,
  uniqueWorldNames,
  storageRequirements,
  redisRequirements,
  fileCollisions,
  uniqueWebClients,
];

export function firstRuleViolation(config: ParsedBrokerConfig): RuleViolation | null {
  for (const rule of rules) {
    const violation = rule(config);
    if (violation !== null) return violation;
  }
  return null;
}

/** The three listeners need three sockets: MCP apart from the issuer, management apart from both. */
function listenersDiffer({ server }: ParsedBrokerConfig): RuleViolation | null {
  const pairs: Array<[path: string[], address: string, otherKey: string, other: string]> = [
    [['server', 'mcp', 'addr'], server.mcp.addr, 'server.addr', server.addr],
    [['server', 'management', 'addr'], server.management.addr, 'server.addr', server.addr],
    [['server', 'management', 'addr'], server.management.addr, 'server.mcp.addr', server.mcp.addr],
  ];
  for (const [path, address, otherKey, other] of pairs) {
    if (!listenersCollide(parseListenAddress(address), parseListenAddress(other))) continue;
    const detail =
      address === other
        ? `both are ${JSON.stringify(other)}`
        : `${JSON.stringify(address)} and ${JSON.stringify(other)} take the same port`;
    return { path, message: `must differ from ${otherKey} (${detail})` };
  }
  return null;
}

function shorter(path: string[], value: number, otherKey: string, other: number): RuleViolation | null {
  if (value < other) return null;
  return {
    path,
    message: `must be shorter than ${otherKey} (${formatGoDuration(value)} is not less than ${formatGoDuration(other)})`,
  };
}

function firstMintBackoffs({ server: { mcp } }: ParsedBrokerConfig): RuleViolation | null {
  if (mcp.firstMintInitialBackoff <= mcp.firstMintMaxBackoff) return null;
  return {
    path: ['server', 'mcp', 'firstMintInitialBackoff'],
    message: `must not exceed server.mcp.firstMintMaxBackoff (${formatGoDuration(mcp.firstMintInitialBackoff)} > ${formatGoDuration(mcp.firstMintMaxBackoff)})`,
  };
}

function sharedCallBound({ server: { mcp } }: ParsedBrokerConfig): RuleViolation | null {
  if (mcp.callsPerSubjectShared <= mcp.callsPerSubject) return null;
  return {
    path: ['server', 'mcp', 'callsPerSubjectShared'],
    message: `must not exceed server.mcp.callsPerSubject (${mcp.callsPerSubjectShared} > ${mcp.callsPerSubject}): it is the bound while others are active`,
  };
}

function tlsPair({ server: { mcp } }: ParsedBrokerConfig): RuleViolation | null {
  const { certFile, keyFile } = mcp.tls;
  if ((certFile === undefined) === (keyFile === undefined)) return null;
  const missing = certFile === undefined ? 'certFile' : 'keyFile';
  const present = certFile === undefined ? 'keyFile' : 'certFile';
  return {
    path: ['server', 'mcp', 'tls', missing],
    message: `is required when server.mcp.tls.${present} is set (both or neither)`,
  };
}

function oidcIssuer({ oidc }: ParsedBrokerConfig): RuleViolation | null {
  if (oidc.issuer !== undefined && oidc.clientID === undefined) {
    return {
      path: ['oidc', 'clientID'],
      message: "is required when oidc.issuer is set (it is the audience of the issuer's ID tokens)",
    };
  }
  if (oidc.issuer !== undefined) return null;
  for (const key of ['clientID', 'clientSecret', 'redirectURL'] as const) {
    if (oidc[key] !== undefined) return { path: ['oidc', key], message: 'needs oidc.issuer' };
  }
  return null;
}

function dialerTrust({ worldDialer }: ParsedBrokerConfig): RuleViolation | null {
  if (worldDialer.caFile === undefined || !worldDialer.insecureSkipVerify) return null;
  return { path: ['worldDialer', 'caFile'], message: 'cannot be combined with worldDialer.insecureSkipVerify' };
}

/** As the Go broker's `config.go`: the broker refuses to start without worlds, unless discovery will bring them. */
function someWorld({ worlds, discovery }: ParsedBrokerConfig): RuleViolation | null {
  if (worlds.length > 0 || discovery.enabled) return null;
  return { path: ['worlds'], message: 'is required: at least one world, unless discovery.enabled is true' };
}

function uniqueWorldNames({ worlds }: ParsedBrokerConfig): RuleViolation | null {
  const seen = new Set<string>();
  for (const [index, world] of worlds.entries()) {
    if (seen.has(world.name))
      return { path: ['worlds', index, 'name'], message: `duplicate world name ${JSON.stringify(world.name)}` };
    seen.add(world.name);
  }
  return null;
}

/** Go broker `config.go` `storage`: what each storage backend needs to find its documents. */
function storageRequirements({ storage, server, worlds }: ParsedBrokerConfig): RuleViolation | null {
  const when = `is required when storage.backend is ${JSON.stringify(storage.backend)}`;
  if (storage.backend === 'file') {
    if (storage.dir === undefined) return { path: ['storage', 'dir'], message: when };
    for (const [index, world] of worlds.entries()) {
      if (world.tokensFile === undefined) return { path: ['worlds', index, 'tokensFile'], message: when };
      if (world.internalAddress === undefined) return { path: ['worlds', index, 'internalAddress'], message: when };
    }
    return null;
  }
  if (server.brokerNamespace === undefined) return { path: ['server', 'brokerNamespace'], message: when };
  for (const [index, world] of worlds.entries()) {
    if (world.namespace === undefined) return { path: ['worlds', index, 'namespace'], message: when };
    if (world.tokensSecret === undefined) return { path: ['worlds', index, 'tokensSecret'], message: when };
  }
  return null;
}

/** Two stores editing one file would corrupt it; only ever a config mistake (Go `validateFilePaths`). */
function fileCollisions({ storage, worlds }: ParsedBrokerConfig): RuleViolation | null {
  if (storage.backend !== 'file' || storage.dir === undefined) return null;
  const owners = new Map<string, string>([
    [resolve(join(storage.dir, refreshTokensFileName)), 'the broker refresh-token state in storage.dir'],
  ]);
  for (const world of worlds)
    owners.set(
      resolve(join(storage.dir, writeTokenFileName(world.name))),
      `the write-token state of world ${JSON.stringify(world.name)}`,
    );
  for (const [index, world] of worlds.entries()) {
    if (world.tokensFile === undefined) continue;
    const path = resolve(world.tokensFile);
    const owner = owners.get(path);
    if (owner !== undefined) return { path: ['worlds', index, 'tokensFile'], message: `collides with ${owner}` };
    owners.set(path, `the tokensFile of world ${JSON.stringify(world.name)}`);
  }
  return null;
}

function uniqueWebClients({ webClients }: ParsedBrokerConfig): RuleViolation | null {
  const seen = new Set<string>();
  for (const [index, client] of webClients.entries()) {
    if (seen.has(client.clientID))
      return {
        path: ['webClients', index, 'clientID'],
        message: `duplicate clientID ${JSON.stringify(client.clientID)}`,
      };
    seen.add(client.clientID);
  }
  return null;
}

/** `state.ephemeral: redis` needs somewhere to connect; one source of each secret. */
function redisRequirements({ state, redis }: ParsedBrokerConfig): RuleViolation | null {
  if (state.ephemeral === 'redis' && (redis === undefined || (redis.url === undefined && redis.sentinel === undefined)))
    return { path: ['redis', 'url'], message: 'is required when state.ephemeral is "redis" (or set redis.sentinel)' };
  if (redis?.password !== undefined && redis.passwordFile !== undefined)
    return { path: ['redis', 'passwordFile'], message: 'conflicts with redis.password (give one of them)' };
  return null;
}
