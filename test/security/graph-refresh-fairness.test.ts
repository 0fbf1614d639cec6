/**
 * Threat: one world takes every graph refresh. After a change a world reports
 * (WATCH, src/broker/changes/follow-changes.ts) the broker reads the changed
 * document again (`BrokerGraph.refresh`). Those reads shared one FIFO queue
 * of 4 workers for all worlds, and the queue and its map of waiting URLs had
 * no bound: the world decides how many change notices arrive. A world that
 * answers slowly, but inside the request timeout so its circuit never opens,
 * held all 4 workers with its own notices, and every other world's refreshes
 * waited behind all of them (the review's script: `root refresh waited
 * 29074 ms behind 40 slow-world refreshes`), against
 * src/broker/worlds/world-connection.ts's "a dead or slow world costs only
 * its own callers".
 *
 * The attack was run first and succeeded: root's refresh was still waiting
 * when the guard below gave up, and no count of one world's waiting refreshes
 * existed to bound. It is kept as this test.
 *
 * Real QUIC worlds (test/broker/graph/test-gateway.ts) and the real graph;
 * the slow world is played by holding its answers on a promise the test
 * releases, so no timing is asserted. The guard timer only turns the unfixed
 * code's endless wait into a failed assertion.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BrokerGraph } from '../../src/broker/graph/graph-service.ts';
import { refreshesWaitingPerWorld, refreshWorkersPerWorld } from '../../src/broker/graph/refresh-queue.ts';
import type { WorldGateway } from '../../src/broker/worlds/gateway.ts';
import type { MarkCall } from '../../src/transport/mark-client.ts';
import { TestGateway } from '../broker/graph/test-gateway.ts';

/** The real gateway, with one world's answers held until `release()`. */
function holdingWorld(gateway: TestGateway, held: string) {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const started: string[] = [];
  const view: WorldGateway = {
    list: () => gateway.list(),
    get: (name) => gateway.get(name),
    canWrite: (world, identity) => gateway.canWrite(world, identity),
    read: async (world: string, call: MarkCall) => {
      if (world === held) {
        started.push(call.path);
        await released;
      }
      return gateway.read(world, call);
    },
    write: (world, identity, call) => gateway.write(world, identity, call),
    close: async () => {},
  };
  return { view, started, release };
}

type Warning = { fields: Record<string, unknown>; message: string };

describe("security: one world's change notices do not hold every other world's graph refreshes", () => {
  let gateway: TestGateway;
  before(async () => {
    gateway = await TestGateway.start([{ name: 'root' }, { name: 'slow' }]);
    await gateway.publish('root', '/a.md', '# A\n\nOn to [b](b.md).\n');
  });
  after(async () => gateway?.close());

  it("refreshes another world while the slow world's wait, and keeps the slow world's waiting refreshes at the cap", async () => {
    const held = holdingWorld(gateway, 'slow');
    const warnings: Warning[] = [];
    const log = { warn: (fields: Record<string, unknown>, message: string) => warnings.push({ fields, message }) };
    const graph = new BrokerGraph({ gateway: held.view, log });

    // The slow world's flood: far more change notices than the cap, each a different document.
    const notices = refreshesWaitingPerWorld * 3;
    // A forgotten refresh settles at once, unread; a running or waiting one settles only once the world answers.
    let settled = 0;
    const flood = Array.from({ length: notices }, (_, i) =>
      graph.refresh(`mark://slow/p${i}.md`).then(() => void settled++),
    );
    // A notice for a document already waiting is not queued a second time.
    const again = graph.refresh(`mark://slow/p${notices - 1}.md`);

    let guard: NodeJS.Timeout | undefined;
    const outcome = await Promise.race([
      graph.refresh('mark://root/a.md').then(() => 'root refreshed'),
      new Promise<string>((resolve) => {
        guard = setTimeout(() => resolve('root still waiting behind the slow world'), 20_000);
      }),
    ]);
    clearTimeout(guard);
    try {
      assert.equal(outcome, 'root refreshed');
      assert.deepEqual(
        graph.backlinks('mark://root/b.md').map((entry) => entry.url),
        ['mark://root/a.md'],
      );

      // The slow world holds only its own workers, and no more than the cap waits behind them: every
      // other notice was set aside, and so settled while the world still held its answers.
      assert.equal(held.started.length, refreshWorkersPerWorld);
      assert.equal(settled, notices - refreshWorkersPerWorld - refreshesWaitingPerWorld);
      // Past the cap the oldest waiting refresh is set aside, to be read once the world's line drains;
      // that is said once, with the world's name, not once per notice set aside.
      const dropped = warnings.filter((w) => w.fields.world === 'slow');
      assert.equal(dropped.length, 1, JSON.stringify(warnings));
      assert.match(dropped[0]!.message, /refresh/);
    } finally {
      held.release();
      await Promise.all([...flood, again]);
    }
    // Every notice settled at once; the ones set aside were read after the line drained, each
    // document once, still in the slow world's own line (test/broker/graph/refresh-owed.test.ts).
    await graph.refreshesSettled('slow');
    assert.equal(settled, notices);
    assert.equal(held.started.length, notices);
    assert.equal(new Set(held.started).size, notices);
    assert.ok(held.started.includes(`/p${notices - 1}.md`));
    assert.ok(held.started.includes(`/p${refreshWorkersPerWorld}.md`), 'the oldest waiting notice was read in the end');
  });
});
