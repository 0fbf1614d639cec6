/**
 * Which Services are worlds, and what a world Service says about its world.
 *
 * The discovery label is `demarkus.io/world=<world name>`: its value is the
 * logical name clients use in `mark://<name>/...`, so it must be a valid world
 * name (a DNS label). The world chart puts it on its Service. Optional:
 * annotation `demarkus.io/public-url: mark://host:port` (shown to clients), and
 * a UDP port named `mark` (else the first UDP port, else 6309). The broker
 * dials `<service>.<namespace>.svc.<cluster domain>:<port>` and verifies the
 * world certificate for that name.
 *
 * Tools read a URL whose authority is a world's public URL as that world
 * (src/broker/worlds/world-aliases.ts), so a public URL is refused when it
 * would stand for another world: a host that is one DNS label (what a world's
 * name is: `mark://team-a:6309` must not lead to this Service), or an address
 * or public URL of a configured world (docs/decisions.md, "A discovered
 * world's public URL cannot name another world").
 */
import type { V1Service } from '@kubernetes/client-node';
import { isValidWorldName } from '../config/world-name.ts';
import { defaultPort } from '../../protocol/limits.ts';
import { authorityKey, authorityOf } from '../worlds/world-aliases.ts';

export const worldLabel = 'demarkus.io/world';
export const publicUrlAnnotation = 'demarkus.io/public-url';
/** The label selector every discovery list and watch sends. */
export const worldLabelSelector = worldLabel;

export type DiscoveredWorld = {
  name: string;
  /** Namespace of the Service (and of the world). */
  namespace: string;
  /** `namespace/name` of the Service it came from. */
  service: string;
  /** Dial address `host:port`. */
  address: string;
  publicUrl?: string;
  /**
   * The Service's `metadata.creationTimestamp` in ms since the epoch, set by
   * the API server (a client cannot choose it): the oldest claimant of a name
   * wins among claimants seen together (discovery-index.ts).
   */
  createdAt?: number;
};

export type ServiceReading = { world: DiscoveredWorld } | { skipped: string };

/**
 * `configuredAuthorities`: the configured worlds' dial addresses and public
 * URL authorities, as `worldAuthorities` (world-aliases.ts) gives them.
 */
export function worldFromService(
  service: V1Service,
  clusterDomain: string,
  configuredAuthorities: ReadonlySet<string> = new Set(),
): ServiceReading {
  const namespace = service.metadata?.namespace ?? '';
  const serviceName = service.metadata?.name ?? '';
  const name = service.metadata?.labels?.[worldLabel] ?? '';
  if (!isValidWorldName(name))
    return { skipped: `label ${worldLabel}=${JSON.stringify(name)} is not a valid world name` };
  const port = markPort(service);
  const world: DiscoveredWorld = {
    name,
    namespace,
    service: `${namespace}/${serviceName}`,
    address: `${serviceName}.${namespace}.svc.${clusterDomain}:${port}`,
  };
  const createdAt = creationTime(service);
  if (createdAt !== undefined) world.createdAt = createdAt;
  const publicUrl = service.metadata?.annotations?.[publicUrlAnnotation];
  if (publicUrl !== undefined && publicUrl !== '') {
    if (!/^mark:\/\/[^/?#@\s]+\/?$/i.test(publicUrl))
      return { skipped: `annotation ${publicUrlAnnotation} must be a mark://host[:port] URL` };
    const refused = otherWorldsAuthority(authorityOf(publicUrl) ?? '', configuredAuthorities);
    if (refused !== null) return { skipped: `annotation ${publicUrlAnnotation} ${refused}` };
    world.publicUrl = publicUrl;
  }
  return { world };
}

/** Why `authority` would stand for another world, or null when it may be this one's. */
function otherWorldsAuthority(authority: string, configuredAuthorities: ReadonlySet<string>): string | null {
  const key = authorityKey(authority);
  const host = key.startsWith('[') ? key.slice(0, key.indexOf(']') + 1) : key.slice(0, key.lastIndexOf(':'));
  if (isValidWorldName(host)) return `has a world name for its host (${host}), which tools read as that world`;
  if (configuredAuthorities.has(key)) return `is an address of a configured world (${key})`;
  return null;
}

/** The list answer carries a Date (client-node deserialises it), a watch event the RFC 3339 string. */
function creationTime(service: V1Service): number | undefined {
  const stamp: Date | string | undefined = service.metadata?.creationTimestamp;
  if (stamp === undefined) return undefined;
  const ms = new Date(stamp).getTime();
  return Number.isNaN(ms) ? undefined : ms;
}

function markPort(service: V1Service): number {
  const udp = (service.spec?.ports ?? []).filter((port) => port.protocol === 'UDP');
  return (udp.find((port) => port.name === 'mark') ?? udp[0])?.port ?? defaultPort;
}
