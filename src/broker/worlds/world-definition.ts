/**
 * Everything the gateway knows about one world: where to dial it, who may
 * write to it, and where its write token goes. Built from the config file now;
 * Kubernetes discovery will produce the same shape.
 */
import { defaultPort } from '../../protocol/limits.ts';
import type { BrokerConfig, BrokerWorldConfig } from '../config/index.ts';
import type { WorldInfo } from './gateway.ts';
import type { AllowList } from './allowlist.ts';

export type WorldDefinition = WorldInfo & {
  /** TLS name to present and verify; default the host of `address`. */
  serverName?: string;
  allow: AllowList;
  /** Path globs of the broker write token (Go broker `config.go` `defaultToken.paths`). */
  writeTokenPaths: readonly string[];
  /** Where the world's tokens.toml lives, for the tokens sink of the storage backend in use. */
  tokens: { file?: string; namespace?: string; secret?: string };
};

/** Go broker `resolveWorldAddress`: `internalAddress`, else the world's Service DNS name on the Mark port. */
export function resolveWorldAddress(world: Pick<BrokerWorldConfig, 'name' | 'namespace' | 'internalAddress'>): string {
  if (world.internalAddress !== undefined) return world.internalAddress;
  if (world.namespace === undefined)
    throw new RangeError(`world ${JSON.stringify(world.name)} has neither internalAddress nor namespace`);
  return `${world.name}.${world.namespace}.svc.cluster.local:${defaultPort}`;
}

export function worldDefinitionFromConfig(world: BrokerWorldConfig): WorldDefinition {
  return {
    name: world.name,
    address: resolveWorldAddress(world),
    ...(world.publicURL === undefined ? {} : { publicUrl: world.publicURL }),
    source: 'config',
    ...(world.serverName === undefined ? {} : { serverName: world.serverName }),
    allow: world.allow,
    writeTokenPaths: world.defaultToken.paths,
    tokens: {
      ...(world.tokensFile === undefined ? {} : { file: world.tokensFile }),
      ...(world.namespace === undefined ? {} : { namespace: world.namespace }),
      ...(world.tokensSecret === undefined ? {} : { secret: world.tokensSecret }),
    },
  };
}

export function worldDefinitionsFromConfig(config: Pick<BrokerConfig, 'worlds'>): WorldDefinition[] {
  return config.worlds.map(worldDefinitionFromConfig);
}

/** The public part, as `WorldGateway.list()` hands it to tools. */
export function worldInfoOf(world: WorldDefinition): WorldInfo {
  return {
    name: world.name,
    address: world.address,
    ...(world.publicUrl === undefined ? {} : { publicUrl: world.publicUrl }),
    source: world.source,
  };
}
