/**
 * Threat: a hub writer's documents at the crawl's own paths, written before
 * the write tools refused them (docs/decisions.md 2026-12-07, "The hub's
 * generated documents are the crawl's alone"), or by anyone holding a direct
 * write token of the hub, are read back by the next crawl as its previous
 * run (src/broker/graph/federation/hub-outputs.ts, loadPreviousCrawl) and
 * carried forward: a forged `/graph.md` row for an unchanged document is
 * republished under the crawl's name, and a forged crawl state's cutoff
 * (in the past, so not caught as a future one) hides a document's change
 * from every later crawl.
 *
 * The attacks succeeded before the fix (checked by running this file against
 * it: PLANTED stayed in /graph.md, and the changed document kept its old
 * link). Now the crawl reads back only documents whose `agent` is its own
 * identity, the one it publishes them as (hub-publish.ts); mark_publish
 * always set `agent` to the caller (src/broker/mcp/write-gate.ts), so a hub
 * writer's document never carried the crawl's.
 *
 * Real QUIC worlds behind the test gateway, the real crawl.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import { runFederationCrawl } from '../../src/broker/graph/federation/federation-crawl.ts';
import { crawlStatePath } from '../../src/broker/graph/federation/crawl-state.ts';
import { buildExport, parseExport } from '../../src/broker/graph/graph-export.ts';
import { TestGateway, writerIdentity } from '../broker/graph/test-gateway.ts';

const planted = 'PLANTED by a hub writer';
const mallory = { agent: 'mallory@example.com' };
const now = () => new Date('2026-03-01T00:00:00Z');

describe('security: the crawl reads back only the hub documents it wrote (their agent)', () => {
  let gateway: TestGateway;
  let worldClock = Date.parse('2026-01-01T10:00:00Z');
  const crawl = () => runFederationCrawl({ gateway, hub: 'root', now, identity: writerIdentity });
  const hubText = async (path: string) =>
    Buffer.from((await gateway.read('root', { verb: 'FETCH', path })).body).toString('utf8');
  const linksFrom = async (url: string) =>
    parseExport(await hubText('/graph.md'))
      .edges.filter((edge) => edge.from === url)
      .map((edge) => edge.to);

  before(async () => {
    gateway = await TestGateway.start([{ name: 'root' }, { name: 'team-c', now: () => new Date(worldClock) }]);
    gateway.writers.add(writerIdentity.email);
  });
  after(() => gateway.close());
  beforeEach(async () => {
    worldClock = Date.parse('2026-01-01T10:00:00Z');
    await gateway.publish('team-c', '/a.md', '# A\n\n[b](b.md)\n');
    await gateway.publish('team-c', '/b.md', '# B\n\n[a](a.md)\n');
    await crawl();
  });

  it("does not carry a hub writer's /graph.md row forward for an unchanged document", async () => {
    const genuine = parseExport(await hubText('/graph.md'));
    const nodes = genuine.nodes.map((node) => (node.url === 'mark://team-c/a.md' ? { ...node, title: planted } : node));
    await gateway.publish('root', '/graph.md', buildExport(now(), nodes, genuine.edges), mallory);
    await crawl();
    const graph = await hubText('/graph.md');
    assert.ok(!graph.includes(planted), graph);
    assert.equal(parseExport(graph).nodes.find((node) => node.url === 'mark://team-c/a.md')?.title, 'A');
  });

  it("does not take a hub writer's crawl-state cutoff, which would hide a change", async () => {
    worldClock = Date.parse('2026-01-01T12:00:00Z');
    await gateway.publish('team-c', '/b.md', '# B\n\n[elsewhere](c.md)\n');
    const genuine = await hubText(crawlStatePath('team-c'));
    const forged = genuine.replace(/^> Changed-After: \S+$/m, '> Changed-After: 2026-02-01T00:00:00Z');
    assert.notEqual(forged, genuine, 'the genuine state names a cutoff');
    await gateway.publish('root', crawlStatePath('team-c'), forged, mallory);
    await crawl();
    assert.deepEqual(await linksFrom('mark://team-c/b.md'), ['mark://team-c/c.md']);
  });

  it('still reads back its own documents: an unchanged world is not fetched again', async () => {
    gateway.calls.length = 0;
    const again = await crawl();
    assert.equal(again.worlds.find((world) => world.world === 'team-c')?.fetched, 0, JSON.stringify(again.worlds));
  });
});
