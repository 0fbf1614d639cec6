/**
 * Threat: a caller opens a WATCH and aborts it, again and again. The client
 * resets the stream at once (STOP_SENDING and RESET_STREAM,
 * src/transport/client.ts `stream`), but the world noticed only at its next
 * write, one heartbeat later (20 s by default): until then the aborted watch
 * kept its slot (the address's quarter of the pool, watch-slots.test.ts) and
 * its change-hub listener. So one address that aborts a watch and opens
 * another is refused `rate-limited` for up to a heartbeat, and a broker
 * retrying its watch after an abort is shut out of its own slot.
 *
 * The attack below succeeded before the world listened for the peer's reset
 * (checked by running this file with the fix reversed): with a 60 s heartbeat
 * and one slot per address, the world's open-watch count stayed at 1 after
 * the abort for the whole 15 s poll, and the new watch was refused
 * `rate-limited`.
 *
 * A real world server over QUIC and the real MarkClient.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startWorldFixture, type WorldFixture } from '../world/world-fixture.ts';

describe('security: an aborted WATCH gives its slot back at once, not at the next heartbeat', () => {
  let world: WorldFixture;
  const open: AbortController[] = [];
  before(async () => {
    // The heartbeat is far beyond the poll below, so only the reset can free the slot in time.
    world = await startWorldFixture({
      world: { watch: { heartbeatMs: 60_000, maxWatches: 4, maxWatchesPerAddress: 1 } },
    });
  });
  after(async () => {
    for (const controller of open) controller.abort();
    await world.close();
  });

  /** Opens a watch and returns its first block's status, with the controller that ends it. */
  async function watch(): Promise<{ status: string; controller: AbortController }> {
    const controller = new AbortController();
    open.push(controller);
    const blocks = world.client.watch(world.authority, { path: '/' }, controller.signal)[Symbol.asyncIterator]();
    return { status: (await blocks.next()).value!.status, controller };
  }

  /** Polls the world's open-watch count until it is `count`, for at most 15 s (a loaded machine). */
  async function openWatchesReach(count: number): Promise<number> {
    const feed = world.server.world.context.changes!;
    for (let waited = 0; feed.open !== count && waited < 15_000; waited += 20)
      await new Promise((resolve) => setTimeout(resolve, 20));
    return feed.open;
  }

  it('frees the slot when the client aborts, so the same address may watch again', async () => {
    const first = await watch();
    assert.equal(first.status, 'ok');
    assert.equal((await watch()).status, 'rate-limited', 'the address holds its one slot');

    first.controller.abort();
    assert.equal(await openWatchesReach(0), 0, 'the aborted watch still holds its slot');
    assert.equal((await watch()).status, 'ok', 'the address may watch again');
    assert.equal(world.server.world.context.changes!.open, 1);
  });
});
