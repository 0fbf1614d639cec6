import { Deadline } from '../../concurrency/deadline.ts';
import { isHashPath } from '../../protocol/paths.ts';
import type { MarkResponse } from '../../protocol/response.ts';
import { Status } from '../../protocol/status.ts';
import {
  encodeWatchBlock,
  eventBlock,
  parseCursor,
  watchControl,
  type Cursor,
  type WatchBlock,
} from '../../protocol/watch.ts';
import type { StreamedAnswer } from '../../transport/index.ts';
import { HubClosed, ResyncNeeded, type Subscription } from '../change-hub.ts';
import type { RequestScope, WorldContext } from './context.ts';
import { checkRead } from './read-auth.ts';
import { errorResponse } from '../../protocol/response.ts';
import { badRequest } from './respond.ts';

/**
 * WATCH (Mark SPEC §6.8), as the Go handler serves it: refusals before the
 * subscription are ordinary responses; after it, the stream carries an
 * acknowledgement, the events the token may read, a heartbeat whenever
 * nothing was written for a heartbeat interval (with the token rechecked on
 * the scope), and a terminal block. Read-auth follows the world's current
 * tokens, not the snapshot pinned at subscription: a revoked token ends the
 * stream at the next heartbeat.
 */
export function handleWatch(
  ctx: WorldContext,
  scope: RequestScope,
  from: string | undefined,
): MarkResponse | StreamedAnswer {
  const { changes } = ctx;
  if (changes === null) return badRequest('unsupported verb: WATCH');
  if (isHashPath(scope.path)) return badRequest('paths matching /sha256-<hash> are reserved');
  const rawSince = scope.request.metadata.since ?? '';
  const since = rawSince === '' ? null : parseCursor(rawSince);
  if (since === null && rawSince !== '') return badRequest('invalid since cursor');
  const denied = checkRead(scope.tokens, scope.token, scope.path);
  if (denied !== null) return denied;
  const admission = changes.admit(from);
  if (admission !== 'admitted') return errorResponse(Status.RateLimited, refusals[admission]);
  const watchScope = scope.trailingSlash && scope.path !== '/' ? `${scope.path}/` : scope.path;
  return {
    streamed: true,
    // A block or heartbeat the watcher does not take within a heartbeat interval ends the watch: a
    // stalled write would otherwise hold the slot and keep the heartbeat's token recheck from running.
    writeTimeoutMs: changes.heartbeatMs,
    run: async (write, signal) => {
      try {
        await serveStream(ctx, scope.token, watchScope, since, write, signal);
      } finally {
        changes.release(from);
      }
    },
  };
}

const refusals = {
  'pool-full': 'too many open watches on this world; retry later',
  'address-full': 'too many open watches from this address; close one before opening another',
} as const;

type Write = (bytes: Uint8Array) => Promise<void>;

async function serveStream(
  ctx: WorldContext,
  token: string | undefined,
  scope: string,
  since: Cursor | null,
  write: Write,
  signal: AbortSignal,
): Promise<void> {
  const { hub } = ctx.changes!;
  let subscription: Subscription;
  try {
    subscription = hub.subscribe(scope, since);
  } catch (error) {
    if (!(error instanceof ResyncNeeded)) throw error;
    return writeBlock(ctx, write, watchControl(Status.Resync, hub.head));
  }
  await writeBlock(ctx, write, watchControl(Status.Ok, subscription.cursor));
  ctx.log.info({ path: scope, resumed: since !== null }, 'watch');
  const terminal = await pump(ctx, token, subscription, write, signal);
  if (terminal !== null) await writeBlock(ctx, write, terminal).catch(() => {});
}

/** Writes events and heartbeats until the watch ends; answers the terminal block, or null when the peer is gone. */
async function pump(
  ctx: WorldContext,
  token: string | undefined,
  subscription: Subscription,
  write: Write,
  signal: AbortSignal,
): Promise<WatchBlock | null> {
  const { hub, heartbeatMs } = ctx.changes!;
  for (;;) {
    // The heartbeat is due a fixed time after the last block written, so omitted events cannot silence it.
    const beat = new Deadline(heartbeatMs, signal);
    try {
      for (;;) {
        let event: Awaited<ReturnType<Subscription['next']>>;
        try {
          event = await subscription.next(beat.signal);
        } catch (error) {
          if (signal.aborted || error instanceof HubClosed) return watchControl(Status.Closing, subscription.cursor);
          if (error instanceof ResyncNeeded) return watchControl(Status.Resync, hub.head);
          if (!beat.timedOut) throw error;
          const denied = checkRead(ctx.tokens(), token, subscription.scope);
          if (denied !== null) return watchControl(denied.status, subscription.cursor);
          await writeBlock(ctx, write, watchControl(Status.Ok, subscription.cursor));
          break;
        }
        if (checkRead(ctx.tokens(), token, event.path) !== null) continue;
        const { seq, ...hint } = event;
        await writeBlock(ctx, write, eventBlock({ ...hint, cursor: { epoch: hub.epoch, seq } }));
        break;
      }
    } finally {
      beat.end();
    }
  }
}

/** A block the codec refuses (a value it cannot carry) is skipped: ending the stream would only replay it. */
async function writeBlock(ctx: WorldContext, write: Write, block: WatchBlock): Promise<void> {
  let bytes: Uint8Array;
  try {
    bytes = encodeWatchBlock(block);
  } catch (error) {
    ctx.log.warn({ path: block.metadata.path, err: String(error) }, 'watch block skipped');
    return;
  }
  await write(bytes);
}
