/**
 * Threat: one subject takes the broker's own share of every world's streams.
 * Each world connection lets a caller (subject) hold at most 4 of its 8
 * streams (src/broker/worlds/fair-gate.ts); the broker's own reads (seeding
 * from `/graph.md`, refreshes after a change) share the one `broker:internal`
 * caller. `mark_graph` read through the shared gateway without a caller, so a
 * crawl's reads were charged to `broker:internal`: one subject running 4
 * crawls at once (200 nodes, 5 workers each) filled that share on every world,
 * and other subjects' crawls and the broker's seeds queued behind it until
 * they failed as `busy` (seeds silently: backlinks went missing).
 *
 * The attack was run first and succeeded: every read of the crawl below went
 * to the gate as `broker:internal`, none as the calling subject. It is kept
 * as this test. The assertion is the gate's view of each read (which caller
 * `WorldConnection.send` admits it for), so it is deterministic; queueing
 * latencies are not asserted.
 *
 * Real QUIC worlds, the real broker and the real MCP SDK client; the only
 * addition is a recorder around the real `WorldConnection.send`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { MarkCall } from '../../src/transport/mark-client.ts';
import { brokerCaller, WorldConnection } from '../../src/broker/worlds/world-connection.ts';
import { isError, resultText, startStack, type Stack } from '../e2e/stack-fixture.ts';

type ChargedRead = { world: string; verb: string; path: string; caller: string };

/** Records which caller every call to a world is admitted for, then sends it as before. */
function recordCharges(): { reads: ChargedRead[]; stop: () => void } {
  const reads: ChargedRead[] = [];
  const send = WorldConnection.prototype.send;
  WorldConnection.prototype.send = function (this: WorldConnection, call: MarkCall, caller?: string) {
    reads.push({ world: this.world.name, verb: call.verb, path: call.path, caller: caller ?? brokerCaller });
    return send.call(this, call, caller);
  };
  return {
    reads,
    stop: () => {
      WorldConnection.prototype.send = send;
    },
  };
}

describe("security: mark_graph's crawl is charged to its caller, not to the broker's own share", () => {
  let stack: Stack;
  const crawler = 'crawler@example.com';

  before(async () => {
    stack = await startStack({ worlds: ['root', 'team-a'], brokerConfig: { rateLimit: { disabled: true } } });
    const alice = await stack.connect();
    const documents: Array<[string, string]> = [
      ['mark://team-a/hub.md', '# Hub\n\n[One](one.md), [two](two.md) and [three](mark://root/three.md)\n'],
      ['mark://team-a/one.md', '# One\n\nOn to [two](two.md).\n'],
      ['mark://team-a/two.md', '# Two\n\nBack to the [hub](hub.md).\n'],
      ['mark://root/three.md', '# Three\n\nNo links.\n'],
    ];
    for (const [url, body] of documents) {
      const published = await alice.callTool({ name: 'mark_publish', arguments: { url, body, expected_version: 0 } });
      assert.equal(isError(published), false, resultText(published));
    }
  });
  after(async () => stack?.close());

  it("charges every document read to the calling subject and the seeding it triggers to the broker's", async () => {
    const client = await stack.connect(await stack.token(crawler));
    // The crawl seeds first; forgetting the throttle makes that seeding read every world's /graph.md now.
    for (const world of ['root', 'team-a']) stack.broker.graph.seeder.forget(world);
    const recorder = recordCharges();
    let answer: Awaited<ReturnType<typeof client.callTool>>;
    try {
      answer = await client.callTool({ name: 'mark_graph', arguments: { url: 'mark://team-a/hub.md', depth: 2 } });
    } finally {
      recorder.stop();
    }
    assert.equal(isError(answer), false, resultText(answer));
    assert.match(resultText(answer), /^Crawled 4 nodes, /);

    const chargedTo = (caller: string) =>
      recorder.reads
        .filter((read) => read.caller === caller && read.path !== '/graph.md')
        .map((read) => `${read.verb} mark://${read.world}${read.path}`)
        .sort();
    assert.deepEqual(chargedTo(crawler), [
      'FETCH mark://root/three.md',
      'FETCH mark://team-a/hub.md',
      'FETCH mark://team-a/one.md',
      'FETCH mark://team-a/two.md',
    ]);

    const seeds = recorder.reads.filter((read) => read.path === '/graph.md');
    assert.deepEqual(seeds.map((read) => read.world).sort(), ['root', 'team-a']);
    for (const seed of seeds) assert.equal(seed.caller, brokerCaller, JSON.stringify(seed));
  });
});
