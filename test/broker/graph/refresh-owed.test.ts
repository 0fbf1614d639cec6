/**
 * Graph refreshes a world's change notices could not get read at once are made
 * up (docs/operations.md, "Changes pushed by the worlds (WATCH)"): one set aside past the
 * world's waiting cap is read once the world's line drains, and after a resync
 * every document the graph read from the world is read again. Before, both
 * were left to the world's next /graph.md seeding, which covers nothing when
 * the world publishes none, so the graph kept a changed document's old links
 * until it changed again.
 *
 * Real QUIC worlds (./test-gateway.ts) and the real graph; one world's answers
 * are held on a promise the test releases, so no timing is asserted.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BrokerGraph } from '../../../src/broker/graph/graph-service.ts';
import {
  refreshesOwedPerWorld,
  refreshesWaitingPerWorld,
  refreshWorkersPerWorld,
} from '../../../src/broker/graph/refresh-queue.ts';
import { holdable, TestGateway } from './test-gateway.ts';

const linkers = (graph: BrokerGraph, url: string) => graph.backlinks(url).map((entry) => entry.url);

describe('graph refreshes not read at once are made up', () => {
  let gateway: TestGateway;
  before(async () => {
    gateway = await TestGateway.start([{ name: 'team-a' }]);
  });
  after(async () => gateway?.close());

  it('reads a refresh set aside past the waiting cap once the line drains', async () => {
    await gateway.publish('team-a', '/a.md', '# A\n\n[b](b.md)\n');
    const world = holdable(gateway);
    const graph = new BrokerGraph({ gateway: world.view });
    await graph.refresh('mark://team-a/a.md');
    assert.deepEqual(linkers(graph, 'mark://team-a/b.md'), ['mark://team-a/a.md']);

    await gateway.publish('team-a', '/a.md', '# A\n\n[c](c.md)\n', { 'expected-version': '1' });
    world.hold();
    const busy = Array.from({ length: refreshWorkersPerWorld }, (_, i) => graph.refresh(`mark://team-a/busy${i}.md`));
    // a.md's notice waits first in line, so the flood behind it sets it aside.
    const changed = graph.refresh('mark://team-a/a.md');
    const flood = Array.from({ length: refreshesWaitingPerWorld }, (_, i) => graph.refresh(`mark://team-a/p${i}.md`));
    await changed;
    assert.deepEqual(linkers(graph, 'mark://team-a/b.md'), ['mark://team-a/a.md'], 'set aside, not read yet');
    world.release();
    await Promise.all([...busy, ...flood]);
    await graph.refreshesSettled('team-a');
    assert.deepEqual(linkers(graph, 'mark://team-a/c.md'), ['mark://team-a/a.md']);
    assert.deepEqual(linkers(graph, 'mark://team-a/b.md'), []);
  });

  it("past the owed bound forgets the oldest refresh and reads the world's /graph.md again at the next seeding", async () => {
    const world = holdable(gateway);
    const warnings: string[] = [];
    const fixed = new Date('2026-03-01T12:00:00Z');
    const graph = new BrokerGraph({
      gateway: world.view,
      now: () => fixed,
      log: { warn: (_fields, message) => warnings.push(message) },
    });
    const seedReads = () =>
      gateway.calls.filter((call) => call.world === 'team-a' && call.verb === 'FETCH' && call.path === '/graph.md')
        .length;
    const from = seedReads();
    await graph.seed();
    await graph.seed();
    assert.equal(seedReads(), from + 1, 'checked once, then throttled for the interval');

    world.hold();
    const busy = Array.from({ length: refreshWorkersPerWorld }, (_, i) => graph.refresh(`mark://team-a/over${i}.md`));
    // The waiting cap's worth waits; each one past it sets the oldest waiting aside, until one more
    // than the owed bound is owed and the oldest set aside (o0) is forgotten.
    const flood = Array.from({ length: refreshesWaitingPerWorld + refreshesOwedPerWorld + 1 }, (_, i) =>
      graph.refresh(`mark://team-a/o${i}.md`),
    );
    world.release();
    await Promise.all([...busy, ...flood]);
    await graph.refreshesSettled('team-a');
    const read = new Set(gateway.calls.filter((call) => call.world === 'team-a').map((call) => call.path));
    assert.ok(!read.has('/o0.md'), 'the oldest owed refresh is forgotten, never read');
    assert.ok(read.has('/o1.md') && read.has(`/o${refreshesWaitingPerWorld + refreshesOwedPerWorld}.md`));
    assert.equal(warnings.filter((message) => message.startsWith('this world reports changes faster')).length, 1);

    await graph.seed();
    assert.equal(seedReads(), from + 2, "the world's /graph.md stands in for what was forgotten, throttle or not");
  });

  it('reads again every document the graph read from a world that resynced', async () => {
    await gateway.publish('team-a', '/x.md', '# X\n\n[y](y.md)\n');
    await gateway.publish('team-a', '/z.md', '# Z\n\n[y](y.md)\n');
    const graph = new BrokerGraph({ gateway });
    await graph.refresh('mark://team-a/x.md');
    await graph.refresh('mark://team-a/z.md');
    assert.deepEqual(linkers(graph, 'mark://team-a/y.md'), ['mark://team-a/x.md', 'mark://team-a/z.md']);
    // Changes the world could not report (its change feed resynced).
    await gateway.publish('team-a', '/x.md', '# X2\n\n[w](w.md)\n', { 'expected-version': '1' });
    await gateway.archive('team-a', '/z.md');
    graph.resynced('team-a');
    await graph.refreshesSettled('team-a');
    assert.deepEqual(linkers(graph, 'mark://team-a/y.md'), []);
    assert.deepEqual(linkers(graph, 'mark://team-a/w.md'), ['mark://team-a/x.md']);
    assert.equal(graph.store.node('mark://team-a/x.md')?.title, 'X2');
  });
});
