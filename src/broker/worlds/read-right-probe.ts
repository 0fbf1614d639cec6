/**
 * How the broker learns, per write, whether its caller may read the target:
 * it asks the world with the caller's own read rights. Through the broker
 * those are a world's public read rights (reads never carry a token, see
 * `WorldGateway.read`), so the probe is a tokenless FETCH.
 *
 * The probe names a pinned version no document reaches (`/doc.md/v2147483647`):
 * a world checks read-auth on the base path before it looks anything up
 * (Mark SPEC §6.1, `/vN`), so a protected path answers `unauthorized` whether
 * or not the document exists, and a readable one answers `not-found` without
 * sending a body. The world's own rules decide; the broker keeps no copy of
 * them that could drift.
 */
import type { MarkResponse } from '../../protocol/response.ts';
import { Status } from '../../protocol/status.ts';
import type { MarkCall } from '../../transport/mark-client.ts';

/** The largest version a 32-bit Go `strconv.Atoi` accepts: never a real version. */
const unreachableVersion = 2_147_483_647;

export function readRightProbe(write: MarkCall): MarkCall {
  return {
    verb: 'FETCH',
    path: `${write.path.replace(/\/+$/, '')}/v${unreachableVersion}`,
    ...(write.timeoutMs === undefined ? {} : { timeoutMs: write.timeoutMs }),
    ...(write.signal === undefined ? {} : { signal: write.signal }),
  };
}

/**
 * What the world's answer to the probe says of the caller's read right:
 * `readable` for `ok`, `archived` or `not-found` (the world looked the path up,
 * so it passed read-auth), `refused` for `unauthorized` or `not-permitted`, and
 * `unconfirmed` for anything else (`rate-limited`, `server-error`,
 * `bad-request`, a status this broker does not know). The broker's token may
 * write anywhere, so only `readable` lets a write go (fail closed).
 */
export type ReadRight = 'readable' | 'refused' | 'unconfirmed';

export function readRightOf(probe: MarkResponse): ReadRight {
  switch (probe.status) {
    case Status.Ok:
    case Status.Archived:
    case Status.NotFound:
      return 'readable';
    case Status.Unauthorized:
    case Status.NotPermitted:
      return 'refused';
    default:
      return 'unconfirmed';
  }
}

/** The world refused an anonymous read of the target: the caller may not write there through the broker. */
export function refusesRead(probe: MarkResponse): boolean {
  return readRightOf(probe) === 'refused';
}
