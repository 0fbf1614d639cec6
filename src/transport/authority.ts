/**
 * From a Mark authority to what the client dials. Mark SPEC §3.4: SNI is the
 * configured server name, else the authority host without its port; overriding the
 * dial address never changes SNI or the authority.
 */
import { isIP } from 'node:net';
import type { DialTarget } from './pooled-connection.ts';

export interface MarkAuthority {
  /** Authority host (DNS name or IP; `[v6]` brackets allowed). */
  host: string;
  port: number;
  /** TLS SNI and verification name; default `host`. */
  serverName?: string;
  /** Address to dial instead of `host` (e.g. a cluster-internal IP); SNI is unchanged. */
  dialHost?: string;
}

export function dialTargetOf(authority: MarkAuthority): DialTarget {
  const host = bareHost(authority.host, 'host');
  const { port } = authority;
  if (!Number.isInteger(port) || port < 1 || port > 65_535) throw new RangeError(`invalid port: ${port}`);
  const serverName = authority.serverName === undefined ? host : bareHost(authority.serverName, 'serverName');
  const dialHost = authority.dialHost === undefined ? host : bareHost(authority.dialHost, 'dialHost');
  // One connection per authority; a different SNI or dial address is a different
  // connection, since a multi-world server routes a whole connection by its SNI.
  let key = `${isIP(host) === 6 ? `[${host}]` : host}:${port}`;
  if (serverName !== host) key += ` sni=${serverName}`;
  if (dialHost !== host) key += ` via=${dialHost}`;
  return { key, dialHost, port, serverName };
}

function bareHost(value: string, field: string): string {
  if (typeof value !== 'string' || value.trim() === '') throw new TypeError(`${field} must be a non-empty string`);
  const lower = value.trim().toLowerCase();
  return lower.startsWith('[') && lower.endsWith(']') ? lower.slice(1, -1) : lower;
}
