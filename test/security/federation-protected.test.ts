/**
 * Threat: the federation crawl goes on publishing a document its world has
 * since read-protected. The crawl writes the hub's `/graph.md`, which every
 * broker seeds and shows to every caller (mark_backlinks, mark_explore,
 * mark_graph_export); a protected document's title and links must leave it at
 * the next run.
 *
 * The attack succeeded before the fix (checked by running this file against
 * it): when a world's walk was incomplete for any reason (its 10,000-document
 * bound, one failed LIST), the crawl kept the previous record of every path
 * the walk had not listed, including paths a fully listed directory showed
 * were no longer there for an anonymous reader. So in every world larger than
 * the bound, a tree protected after one crawl stayed in the hub's /graph.md
 * with its titles and links, run after run.
 *
 * Real QUIC worlds whose tokens.toml is changed while they run, and the real
 * federation crawl.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runFederationCrawl } from '../../src/broker/graph/federation/federation-crawl.ts';
import { parseExport } from '../../src/broker/graph/graph-export.ts';
import { TestGateway, writerIdentity } from '../broker/graph/test-gateway.ts';
import { protectInTokensFile } from './read-protection.ts';

describe('security: the federation crawl publishes nothing of a tree protected since its last run', () => {
  let gateway: TestGateway;
  const crawl = (maxDocumentsPerWorld?: number) =>
    runFederationCrawl({
      gateway,
      hub: 'root',
      now: () => new Date('2026-03-01T00:00:00Z'),
      identity: writerIdentity,
      ...(maxDocumentsPerWorld === undefined ? {} : { limits: { maxDocumentsPerWorld } }),
    });
  const hubGraph = async () =>
    parseExport(Buffer.from((await gateway.read('root', { verb: 'FETCH', path: '/graph.md' })).body).toString('utf8'));

  before(async () => {
    gateway = await TestGateway.start([{ name: 'root' }, { name: 'team-a' }]);
    gateway.writers.add(writerIdentity.email);
    await gateway.publish('team-a', '/index.md', '# Team A\n\nSee [the plan](private/plan.md).\n');
    await gateway.publish('team-a', '/private/plan.md', '# Secret takeover plan\n\nStep two: [targets](targets.md).\n');
    await gateway.publish('team-a', '/private/targets.md', '# Targets\n');
    await gateway.publish('team-a', '/zz/x.md', '# X\n');
    await gateway.publish('team-a', '/zz/y.md', '# Y\n');
    const first = await crawl();
    assert.equal(first.worlds.find((w) => w.world === 'team-a')?.documents, 5);
    // The tree becomes readable with a read token only, as an operator protects it.
    await protectInTokensFile(
      join(gateway.fixtures.get('team-a')!.dir, 'tokens.toml'),
      '/private/**',
      'team-a',
      async () => (await gateway.read('team-a', { verb: 'FETCH', path: '/private/plan.md' })).status === 'unauthorized',
    );
  });
  after(() => gateway?.close());

  it('drops the protected documents from /graph.md even when the walk of their world is incomplete', async () => {
    // Two documents: /index.md and /zz/x.md are listed, /zz/y.md is beyond the bound.
    const bounded = await crawl(2);
    const teamA = bounded.worlds.find((w) => w.world === 'team-a')!;
    assert.equal(teamA.complete, false);
    assert.match(teamA.problems.join('\n'), /document bound of 2 reached/);
    const graph = await hubGraph();
    const urls = graph.nodes.map((node) => node.url);
    assert.ok(!urls.includes('mark://team-a/private/plan.md'), urls.join('\n'));
    assert.ok(!urls.includes('mark://team-a/private/targets.md'), urls.join('\n'));
    assert.ok(!graph.nodes.some((node) => /takeover|Targets/.test(node.title)));
    assert.deepEqual(
      graph.edges.filter((edge) => edge.from.startsWith('mark://team-a/private/')),
      [],
    );
    // What the bound kept the walk from reaching is still kept, not blanked.
    assert.ok(urls.includes('mark://team-a/zz/y.md'), urls.join('\n'));
  });
});
