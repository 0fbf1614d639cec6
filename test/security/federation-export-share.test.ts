/**
 * Threat: one world writer stops the federation's /graph.md for every world.
 * Each document is held to 1,000 links (test/security/federation-link-flood.test.ts),
 * but the hub's `/graph.md` holds every world's links in one Mark document of
 * at most 1 MiB (src/protocol/limits.ts), and nothing bounded one world's part
 * of it: about 15 documents of 1,000 links each in team-a made the export too
 * large, it was refused, and no world's changes reached the hub while they stood.
 *
 * The attack succeeded before the fix (checked by running this file against
 * it): the crawl's /graph.md outcome was `too-large`, naming team-a, and the hub
 * kept its previous graph, without team-b's new document. Each world now has a
 * share of the export (src/broker/graph/federation/export-share.ts): when the
 * whole graph is over the limit, the worlds holding the most are cut to the
 * largest equal share that fits, since 2026-12-07 counted in bytes of rows
 * (documents and links), so the export publishes with every other world's
 * links whole, and the summary says which world was cut and the share. The cut
 * documents get no etag in their world's crawl state, so the next crawl reads
 * them again rather than keep their cut rows as if they were whole.
 *
 * Real QUIC worlds and the real federation crawl.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { summaryText } from '../../src/broker/graph/federation/summary-text.ts';
import { parseExport } from '../../src/broker/graph/graph-export.ts';
import { TestGateway, writerIdentity } from '../broker/graph/test-gateway.ts';
import { linkFlood } from '../support/link-flood.ts';
import { assertWithinShare, federationHub } from './federation-hub.ts';

// Mark's body limit (docs/security.md, "Limits and defaults"), written out so the test states it.
const maxBodyBytes = 1_048_576;
const floodDocuments = 15;

describe('security: one world writer cannot stop /graph.md for the other worlds', () => {
  let gateway: TestGateway;
  const { crawl, hubGraphText, graphOutcome } = federationHub(() => gateway);
  const teamBLinks = Array.from({ length: 30 }, (_, i) => `mark://team-b/topics/${i}.md`);

  before(async () => {
    gateway = await TestGateway.start([{ name: 'root' }, { name: 'team-a' }, { name: 'team-b' }]);
    gateway.writers.add(writerIdentity.email);
    await gateway.publish('root', '/index.md', '# Hub\n\n[Team B](mark://team-b/notes.md)\n');
    await gateway.publish(
      'team-b',
      '/notes.md',
      `# Team B notes\n\n${teamBLinks.map((to) => `[t](${to})`).join(' ')}\n`,
    );
    for (let n = 0; n < floodDocuments; n++)
      await gateway.publish('team-a', `/flood-${n}.md`, linkFlood(`flood-${n}-padding-padding`, 40_000));
    await gateway.publish('team-a', '/small.md', '# Small\n\n[Notes](mark://team-b/notes.md)\n');
  });
  after(() => gateway?.close());

  it("publishes /graph.md with the other worlds' links whole, cuts the flooding world to its share and names it", async () => {
    const summary = await crawl();
    const outcome = graphOutcome(summary);
    assert.equal(outcome?.outcome, 'published', JSON.stringify(outcome));
    const text = await hubGraphText();
    assert.ok(Buffer.byteLength(text) <= maxBodyBytes);
    const graph = parseExport(text);
    const from = (url: string) => graph.edges.filter((e) => e.from === url).map((e) => e.to);
    assert.deepEqual(from('mark://team-b/notes.md').sort(), [...teamBLinks].sort());
    assert.deepEqual(from('mark://root/index.md'), ['mark://team-b/notes.md']);
    const teamA = summary.worlds.find((w) => w.world === 'team-a');
    const flooded = graph.edges.filter((e) => e.from.startsWith('mark://team-a/flood-')).length;
    assert.ok(flooded > 0 && flooded < floodDocuments * 1000, `team-a kept ${flooded} links`);
    assert.equal(teamA?.exportLinksCut, floodDocuments * 1000 - flooded);
    assert.equal(summary.worlds.find((w) => w.world === 'team-b')?.exportLinksCut, 0);
    // The document with few links keeps them: the heaviest documents are cut first.
    assert.deepEqual(from('mark://team-a/small.md'), ['mark://team-b/notes.md']);
    assert.match(summaryText(summary), /team-a .*links left out of \/graph\.md/);
    assert.match(outcome?.detail ?? '', /team-a/);
    assertWithinShare(summary, text, { cut: ['team-a'], whole: ['root', 'team-b'] });
  });

  it('reads the cut documents again on the next crawl instead of keeping their cut rows', async () => {
    const summary = await crawl();
    const teamA = summary.worlds.find((w) => w.world === 'team-a');
    assert.equal(teamA?.fetched, floodDocuments, 'every flood document was cut and is read again');
    assert.equal(teamA?.skipped, 1, '/small.md was whole and is unchanged');
    assert.ok(['published', 'unchanged'].includes(graphOutcome(summary)?.outcome ?? ''));
  });
});
