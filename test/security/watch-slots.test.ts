/**
 * Threat: one caller takes every WATCH slot of a world, so the broker's own
 * watch (src/broker/changes/world-watcher.ts) is refused and change
 * notifications stop for everyone. A world holds a pool of open watches
 * (256 by default); one address may open 16 connections of 10 streams each.
 *
 * The attack below succeeded before the pool was shared out per address
 * (checked by running this file against the world without the bound): with a
 * pool of 8, one address held all 8 watches and the next was refused
 * `rate-limited`, whoever asked.
 *
 * A real world server over QUIC and the real MCP-side client's `watch`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ChangeFeed } from '../../src/world/change-hub.ts';
import { startWorldFixture, type WorldFixture } from '../world/world-fixture.ts';

describe('security: one address cannot hold every WATCH slot', () => {
  let world: WorldFixture;
  const controller = new AbortController();
  before(async () => {
    world = await startWorldFixture({ world: { watch: { maxWatches: 8, heartbeatMs: 60_000 } } });
  });
  after(async () => {
    controller.abort();
    await world.close();
  });

  /** The first block of a new watch, left open. */
  async function openWatch(): Promise<string> {
    const blocks = world.client.watch(world.authority, { path: '/' }, controller.signal)[Symbol.asyncIterator]();
    return (await blocks.next()).value!.status;
  }

  it('an address holds at most a quarter of the pool', async () => {
    const opened = [];
    for (let i = 0; i < 8; i += 1) opened.push(await openWatch());
    assert.deepEqual(opened, [
      'ok',
      'ok',
      'rate-limited',
      'rate-limited',
      'rate-limited',
      'rate-limited',
      'rate-limited',
      'rate-limited',
    ]);
  });

  it('another address still gets a slot, and a released slot is the address’s again', () => {
    const feed = new ChangeFeed({ heartbeatMs: 60_000, maxWatches: 8 });
    assert.equal(feed.admit('192.0.2.1'), 'admitted');
    assert.equal(feed.admit('192.0.2.1'), 'admitted');
    assert.equal(feed.admit('192.0.2.1'), 'address-full');
    assert.equal(feed.admit('2001:db8::/64'), 'admitted');
    feed.release('192.0.2.1');
    assert.equal(feed.admit('192.0.2.1'), 'admitted');
    assert.equal(feed.open, 3);
  });
});
