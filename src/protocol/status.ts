/**
 * Response statuses (Mark SPEC §7.1). The protocol has no numeric codes: the
 * status word is the whole outcome.
 */
export const Status = {
  Ok: 'ok',
  Created: 'created',
  NotModified: 'not-modified',
  NotFound: 'not-found',
  Archived: 'archived',
  Unauthorized: 'unauthorized',
  NotPermitted: 'not-permitted',
  Conflict: 'conflict',
  BadRequest: 'bad-request',
  ServerError: 'server-error',
  RateLimited: 'rate-limited',
  /** WATCH-only terminal statuses. */
  Resync: 'resync',
  Closing: 'closing',
} as const;

export type Status = (typeof Status)[keyof typeof Status];

const known: ReadonlySet<string> = new Set(Object.values(Status));

/** True for a status this implementation knows. Clients must still accept others. */
export function isKnownStatus(value: string): value is Status {
  return known.has(value);
}

/**
 * A write's answer when the world stored it: `created` for a new version, `ok` for PUBLISH's
 * unarchive (an empty body brings the archived version back, src/world/handler/publish.ts).
 */
export function isWriteStored(status: string): boolean {
  return status === Status.Created || status === Status.Ok;
}

/**
 * The title of an error body: the status with its first letter upper-cased and
 * every `-` turned into a space (`not-found` → `Not found`), as the Go handler writes it.
 */
export function statusTitle(status: string): string {
  const spaced = status.replaceAll('-', ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}
