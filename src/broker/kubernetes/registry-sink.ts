/**
 * Discovery into the world registry (worlds/registry.ts): a discovered world
 * becomes a WorldDefinition with source `discovery`. It is readable at once
 * and never writable: the registry's allowlist semantics let everyone write
 * when all lists are empty, so a discovered world carries an allowlist no
 * verified identity can meet (the reserved `.invalid` domain, RFC 6761 §6.4)
 * and no write-token target. Listing the world in `worlds[]` makes it
 * writable (the configured entry wins).
 */
import type { AllowList } from '../worlds/allowlist.ts';
import type { WorldRegistry } from '../worlds/registry.ts';
import type { WorldDefinition } from '../worlds/world-definition.ts';
import type { DiscoveredWorldSink } from './discovery-index.ts';
import type { DiscoveredWorld } from './service-world.ts';

export const discoveredWorldWriters: AllowList = Object.freeze({
  domains: Object.freeze(['discovered-world.invalid']),
  groups: Object.freeze([]),
  emails: Object.freeze([]),
});

export function discoveredWorldDefinition(world: DiscoveredWorld): WorldDefinition {
  return {
    name: world.name,
    address: world.address,
    ...(world.publicUrl === undefined ? {} : { publicUrl: world.publicUrl }),
    source: 'discovery',
    allow: discoveredWorldWriters,
    writeTokenPaths: [],
    tokens: { namespace: world.namespace },
  };
}

export function registrySink(registry: WorldRegistry): DiscoveredWorldSink {
  return {
    upsert: (world) => void registry.upsert(discoveredWorldDefinition(world)),
    remove: (name) => void registry.remove(name),
  };
}
