/**
 * A graph answer's read checks are paid from their world's budget, shared by
 * every caller of the broker process (src/broker/graph/read-check.ts
 * `readCheckBudgetPerWorld`): past it, documents are withheld and counted as
 * unchecked rather than sent to the world. The budgets' clock is held still,
 * so what refills is exactly what the test advances. Real QUIC worlds.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { BrokerGraph } from '../../../src/broker/graph/graph-service.ts';
import { readCheckBudgetPerWorld } from '../../../src/broker/graph/read-check.ts';
import { TestGateway } from './test-gateway.ts';

const now = () => new Date('2026-03-01T00:00:00Z');
const target = 'mark://team-a/docs/a.md';
const { burst, perMinute } = readCheckBudgetPerWorld;
/** Documents in folders of two, one more than two bursts: a LIST never replaces their checks. */
const scattered = (world: string, count: number) =>
  Array.from({ length: count }, (_, i) => `mark://${world}/s${Math.floor(i / 2)}/d${i % 2}.md`);

describe("graph read checks within their world's budget", () => {
  let gateway: TestGateway;
  let clockMs: number;
  let refused: Array<[string, number]>;

  const graphOver = (sources: readonly string[], linked: (source: string) => string = () => target) => {
    const graph = new BrokerGraph({
      gateway,
      now,
      readCheck: { now: () => clockMs, refused: (world, checks) => refused.push([world, checks]) },
    });
    graph.store.seedFromExport(
      sources.map((url) => ({ url, title: 'S', status: 'ok', linkCount: 1 })),
      sources.map((from) => ({ from, to: linked(from), rel: '', label: 'a', anchor: '', count: 1 })),
    );
    return graph;
  };
  const checksTo = (world: string) => gateway.calls.filter((call) => call.world === world).length;

  before(async () => {
    gateway = await TestGateway.start([{ name: 'team-a' }, { name: 'team-b' }]);
  });
  beforeEach(() => {
    gateway.calls.length = 0;
    clockMs = 0;
    refused = [];
  });
  after(() => gateway?.close());

  it('sends a world at most its burst, withholds the rest as unchecked, and checks more as the budget refills', async () => {
    const sources = scattered('team-a', 2 * burst + 1);
    const graph = graphOver(sources);

    const first = await graph.readableBacklinks(target, gateway);
    assert.equal(checksTo('team-a'), burst);
    assert.equal(first.entries.length, burst);
    assert.equal(first.unchecked, sources.length - burst);
    assert.deepEqual(refused, [['team-a', sources.length - burst]]);

    // Another caller's answer at the same instant: the verdicts are cached, the budget is spent.
    const second = await graph.readableBacklinks(target, gateway);
    assert.equal(checksTo('team-a'), burst);
    assert.equal(second.entries.length, burst);
    assert.equal(second.unchecked, sources.length - burst);

    clockMs += 1000;
    const refilled = perMinute / 60;
    const third = await graph.readableBacklinks(target, gateway);
    assert.equal(checksTo('team-a'), burst + refilled);
    assert.equal(third.entries.length, burst + refilled);
    assert.equal(third.unchecked, sources.length - burst - refilled);
  });

  it("spends one world's budget only: another world's checks still go", async () => {
    const sources = [...scattered('team-a', burst + 10), ...scattered('team-b', 4)];
    const graph = graphOver(sources);
    const shown = await graph.readableBacklinks(target, gateway);
    assert.equal(checksTo('team-a'), burst);
    assert.equal(checksTo('team-b'), 4);
    assert.equal(shown.entries.filter((entry) => entry.url.startsWith('mark://team-b/')).length, 4);
    assert.equal(shown.unchecked, 10);
    assert.deepEqual(refused, [['team-a', 10]]);
  });

  it("pays a folder's LIST from the same budget: once it is spent, the folder is withheld, not listed", async () => {
    const folderTarget = 'mark://team-a/docs/b.md';
    const folder = Array.from({ length: 5 }, (_, i) => `mark://team-a/folder/d${i}.md`);
    const graph = graphOver([...scattered('team-a', burst), ...folder], (source) =>
      source.includes('/folder/') ? folderTarget : target,
    );
    await graph.readableBacklinks(target, gateway);
    assert.equal(checksTo('team-a'), burst);

    const spent = await graph.readableBacklinks(folderTarget, gateway);
    assert.equal(checksTo('team-a'), burst);
    assert.deepEqual(spent, { entries: [], unchecked: folder.length });

    // A second refills ten: one LIST page, then (the world has no such folder) each document's own check.
    clockMs += 1000;
    const listed = await graph.readableBacklinks(folderTarget, gateway);
    assert.deepEqual(
      gateway.callsTo('LIST').map((call) => call.path),
      ['/folder/'],
    );
    assert.equal(checksTo('team-a'), burst + 1 + folder.length);
    assert.equal(listed.unchecked, 0);
  });
});
