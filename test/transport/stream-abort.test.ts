/**
 * A streamed request (WATCH) holds one of the client's `maxConcurrentStreams`
 * slots on its connection (8 by default). Aborting its signal must give the
 * slot back and reset the stream even when the caller never finishes the
 * iterator (no `return()`, no `break`), and finishing it afterwards must not
 * give the slot back a second time.
 *
 * Before the fix the slot came back only when the iterator finished. Both
 * tests failed against the old client (checked by running this file with the
 * fix reversed): each aborted watch still held its slot, and after 8 of them
 * the 9th watch on the connection waited for a slot until the request timeout
 * and failed with TimeoutError.
 *
 * A real world server over QUIC and the real MarkClient.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MarkClient } from '../../src/transport/mark-client.ts';
import { RequestAbortedError } from '../../src/transport/errors.ts';
import type { MarkResponse } from '../../src/protocol/response.ts';
import { startWorldFixture, testTls, type WorldFixture } from '../world/world-fixture.ts';

describe('an aborted stream gives its slot back, once (src/transport/client.ts stream)', () => {
  let world: WorldFixture;
  const clients: MarkClient[] = [];
  const newClient = async (): Promise<MarkClient> => {
    const client = new MarkClient({ ca: (await testTls()).cert });
    clients.push(client);
    return client;
  };

  before(async () => {
    // The world lets this address hold more watches than both tests open: it notices a
    // client's reset only at its next write, so an aborted watch keeps its world slot
    // until the next heartbeat (60 s here), after this file ends.
    world = await startWorldFixture({
      world: { watch: { maxWatches: 64, maxWatchesPerAddress: 64, heartbeatMs: 60_000 } },
    });
    const published = await world.local('PUBLISH', '/doc.md', { auth: world.tokens.writer! }, '# Doc\n');
    assert.equal(published.status, 'created');
  });
  after(async () => {
    for (const client of clients) await client.close();
    await world.close();
  });

  /** A watch whose acknowledgement has arrived; the caller decides how it ends. */
  async function acknowledgedWatch(client: MarkClient) {
    const controller = new AbortController();
    const blocks = client.watch(world.authority, { path: '/' }, controller.signal)[Symbol.asyncIterator]();
    assert.equal((await blocks.next()).value?.status, 'ok', 'the watch is acknowledged');
    return { controller, blocks };
  }

  const fetchDoc = (client: MarkClient): Promise<MarkResponse> =>
    client.call(world.authority, { verb: 'FETCH', path: '/doc.md' });

  it('serves a FETCH after more aborted watches than slots, none of them finished', async () => {
    const client = await newClient();
    for (let i = 0; i < 12; i += 1) {
      const { controller } = await acknowledgedWatch(client);
      controller.abort();
      // The iterator is left suspended on purpose: no next(), no return().
      assert.equal(client.transport.openStreams, 0, `watch ${i + 1} still holds its slot after the abort`);
    }
    assert.equal((await fetchDoc(client)).status, 'ok');
  });

  it('counts an aborted watch finished afterwards once: with 8 watches open the 9th request waits', async () => {
    const client = await newClient();
    const returned = await acknowledgedWatch(client);
    returned.controller.abort();
    assert.equal(client.transport.openStreams, 0);
    assert.deepEqual(await returned.blocks.return(undefined), { done: true, value: undefined });
    assert.equal(client.transport.openStreams, 0, 'return() after the abort released the slot again');

    const resumed = await acknowledgedWatch(client);
    resumed.controller.abort();
    await assert.rejects(resumed.blocks.next(), RequestAbortedError);
    assert.equal(client.transport.openStreams, 0, 'next() after the abort released the slot again');

    const open = [];
    for (let i = 0; i < 8; i += 1) open.push(await acknowledgedWatch(client));
    assert.equal(client.transport.openStreams, 8);

    let settled = false;
    const ninth = fetchDoc(client).finally(() => {
      settled = true;
    });
    // With a slot free the FETCH would take it in microtasks (pool and semaphore hold no I/O),
    // so after one macrotask it either holds a 9th slot or is queued behind the 8.
    await new Promise(setImmediate);
    assert.equal(client.transport.openStreams, 8, 'a 9th stream slot was handed out');
    assert.equal(settled, false);

    open[0]!.controller.abort();
    assert.equal((await ninth).status, 'ok');
    for (const watch of open) watch.controller.abort();
    assert.equal(client.transport.openStreams, 0);
  });
});
