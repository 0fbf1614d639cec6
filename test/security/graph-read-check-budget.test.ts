/**
 * Threat: one caller's graph answer spends a world's rate limit for everybody.
 * A world limits requests per source address (50/s, burst 100 by default,
 * src/transport/server.ts), and every broker caller reaches it from the
 * broker's address. A graph answer checks that its caller may read each
 * document it shows (src/broker/graph/read-check.ts); a folder of three or
 * more takes one LIST, but documents spread over smaller folders cost one
 * request each, up to 5,000 per answer. So one mark_backlinks over documents
 * in folders of two sent a request per document to one world, and every
 * other caller's reads of that world waited behind them for the world's
 * tokens.
 *
 * The attack was run first and succeeded: one mark_backlinks over 400 linking
 * documents in folders of two sent 400 read checks to team-a in one answer
 * (8 s at the world's shipped limit; another caller's mark_fetch of team-a
 * took 88 ms median meanwhile, 8 ms alone). It is kept as
 * this test: the read checks the world sees for one answer stay within the
 * broker's per-world budget (its burst, plus what refilled while the answer
 * ran), the rows left unchecked are withheld and said to be, the refusals are
 * counted, each check is charged to the calling subject's share, and another
 * caller's mark_fetch of the world is answered meanwhile.
 *
 * Real QUIC worlds at the chart's shipped rate limit, the real broker and the
 * real MCP SDK client; the world's request handler and the gateway's send are
 * wrapped only to count.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { readCheckBudgetPerWorld } from '../../src/broker/graph/read-check.ts';
import { readRightProbe } from '../../src/broker/worlds/read-right-probe.ts';
import { brokerCaller, WorldConnection } from '../../src/broker/worlds/world-connection.ts';
import type { MarkCall } from '../../src/transport/mark-client.ts';
import { parseRequest } from '../../src/protocol/request.ts';
import type { World } from '../../src/world/world.ts';
import { isError, resultText, startStack, type Stack } from '../e2e/stack-fixture.ts';

const target = 'mark://team-a/docs/target.md';
const linking = 400;
/** Two documents per folder: below the three from which one LIST replaces their checks. */
const sources = Array.from({ length: linking }, (_, i) => `mark://team-a/f${Math.floor(i / 2)}/d${i % 2}.md`);
const probeSuffix = readRightProbe({ verb: 'FETCH', path: '' }).path;

/** Counts, at the world, every request its handler is given (after the world's own rate limit). */
function countAtWorld(world: World): { seen: string[]; stop: () => void } {
  const seen: string[] = [];
  const serve = world.serve;
  const writable = world as { serve: World['serve'] };
  writable.serve = (incoming) => {
    const { verb, path } = parseRequest(incoming.bytes);
    seen.push(`${verb} ${path}`);
    return serve(incoming);
  };
  return { seen, stop: () => (writable.serve = serve) };
}

/** Which caller each read is admitted for at the broker's fair gate (src/broker/worlds/fair-gate.ts). */
function recordCharges(): { callers: Map<string, string>; stop: () => void } {
  const callers = new Map<string, string>();
  const send = WorldConnection.prototype.send;
  WorldConnection.prototype.send = function (this: WorldConnection, call: MarkCall, caller?: string) {
    callers.set(`${call.verb} ${call.path}`, caller ?? brokerCaller);
    return send.call(this, call, caller);
  };
  return { callers, stop: () => (WorldConnection.prototype.send = send) };
}

describe("security: one caller's graph answer spends at most the broker's read-check budget of a world", () => {
  let stack: Stack;
  const grapher = 'grapher@example.com';

  before(async () => {
    stack = await startStack({
      worlds: ['root', 'team-a'],
      brokerConfig: { rateLimit: { disabled: true } },
      // The world chart's shipped limit (docs/world-server.md).
      worldRateLimit: { perSecond: 50, burst: 100 },
    });
    const alice = await stack.connect();
    for (const [url, body] of [
      [target, '# Target\n'],
      ['mark://team-a/notes/victim.md', '# Victim note\n\nStill readable.\n'],
    ] as const) {
      const published = await alice.callTool({ name: 'mark_publish', arguments: { url, body, expected_version: 0 } });
      assert.equal(isError(published), false, resultText(published));
    }
    // The graph as a seed from /graph.md would leave it: 400 documents, each linking to the target.
    stack.broker.graph.store.seedFromExport(
      sources.map((url) => ({ url, title: 'Linking', status: 'ok', linkCount: 1 })),
      sources.map((from) => ({ from, to: target, rel: '', label: 'target', anchor: '', count: 1 })),
    );
  });
  after(async () => stack?.close());

  it("bounds the answer's requests to the world, withholds the rest, and another caller's fetch is answered", async () => {
    const grapherClient = await stack.connect(await stack.token(grapher));
    const victim = await stack.connect(await stack.token('victim@example.com'));
    const world = countAtWorld(stack.worlds.get('team-a')!.server.world);
    const charges = recordCharges();
    const started = performance.now();
    let answer: Awaited<ReturnType<typeof grapherClient.callTool>>;
    let fetched: Awaited<ReturnType<typeof victim.callTool>>;
    try {
      const graphCall = grapherClient.callTool({ name: 'mark_backlinks', arguments: { url: target } });
      fetched = await victim.callTool({
        name: 'mark_fetch',
        arguments: { url: 'mark://team-a/notes/victim.md', force: true },
      });
      answer = await graphCall;
    } finally {
      world.stop();
      charges.stop();
    }
    const elapsedSeconds = (performance.now() - started) / 1000;

    assert.equal(isError(fetched), false, resultText(fetched));
    assert.match(resultText(fetched), /Still readable/);

    assert.equal(isError(answer), false, resultText(answer));
    const checks = world.seen.filter((request) => request.endsWith(probeSuffix) || request.startsWith('LIST '));
    // The budget refills while the answer runs: its burst, plus what came back in that time.
    const bound = readCheckBudgetPerWorld.burst + Math.ceil((elapsedSeconds * readCheckBudgetPerWorld.perMinute) / 60);
    assert.ok(checks.length > 0, 'the answer checked some documents');
    assert.ok(checks.length <= bound, `${checks.length} read checks reached the world, over the budget of ${bound}`);
    assert.ok(checks.length < linking, `${checks.length} of ${linking}`);

    const shown = (answer.structuredContent as { count: number }).count;
    assert.equal(shown, checks.length, 'every checked document (readable: not-found) is shown, no other');
    assert.match(resultText(answer), /were left out/);

    const metrics = await stack.broker.metrics.registry.metrics();
    const refused = /broker_graph_read_checks_refused_total\{world="team-a"\} (\d+)/.exec(metrics);
    assert.ok(refused !== null, 'the refusals are counted');
    assert.equal(Number(refused[1]), linking - checks.length);

    for (const check of checks)
      if (check.endsWith(probeSuffix)) assert.equal(charges.callers.get(check), grapher, check);
  });
});
