/**
 * How a command reaches one world server directly, without the broker: the
 * connection flags (`--ca`, `--insecure`, `--server-name`), the client they
 * make and the authority they name. `mark` and `search --direct` both take
 * them, so a world trusted, or reached under a server name, by one is by the other.
 */
import { readFile } from 'node:fs/promises';
import { bareHost, type MarkUrl } from '../protocol/mark-url.ts';
import type { MarkAuthority } from '../transport/authority.ts';
import { MarkClient } from '../transport/mark-client.ts';

/** The connection flags, for `commandArgs`. */
export const directWorldOptions = {
  ca: { type: 'string' },
  insecure: { type: 'boolean' },
  'server-name': { type: 'string' },
} as const;

export type DirectWorldFlags = {
  ca?: string | undefined;
  insecure?: boolean | undefined;
  'server-name'?: string | undefined;
};

/** A client trusting `--ca` (or nothing, with `--insecure`); a read is tried at most twice. */
export async function directWorldClient(flags: DirectWorldFlags): Promise<MarkClient> {
  return new MarkClient({
    ...(flags.ca ? { ca: await readFile(flags.ca, 'utf8') } : {}),
    insecureSkipVerify: flags.insecure ?? false,
    maxAttempts: 2,
  });
}

/** The world `url` names, verified under `--server-name` when given (Mark SPEC §3.4). */
export function directWorldAuthority(url: MarkUrl, flags: DirectWorldFlags): MarkAuthority {
  return {
    host: bareHost(url.host),
    port: url.port,
    ...(flags['server-name'] ? { serverName: flags['server-name'] } : {}),
  };
}
