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
import type { TestGateway } from '../broker/graph/test-gateway.ts';
import { linkFlood } from '../support/link-flood.ts';
import { assertWithinShare, crawlPastFlood, federationHub, startFloodedFederation } from './federation-hub.ts';

const floodDocuments = 15;

describe('security: one world writer cannot stop /graph.md for the other worlds', () => {
  let gateway: TestGateway;
  const hub = federationHub(() => gateway);
  const { crawl, graphOutcome } = hub;

  before(async () => {
    gateway = await startFloodedFederation(async (flooded) => {
      for (let n = 0; n < floodDocuments; n++)
        await flooded.publish('team-a', `/flood-${n}.md`, linkFlood(`flood-${n}-padding-padding`, 40_000));
    });
  });
  after(() => gateway?.close());

  it("publishes /graph.md with the other worlds' links whole, cuts the flooding world to its share and names it", async () => {
    // Published within 1 MiB, root's and team-b's links whole (crawlPastFlood).
    const { summary, outcome, text, graph, linksFrom } = await crawlPastFlood(hub);
    const teamA = summary.worlds.find((w) => w.world === 'team-a');
    const flooded = graph.edges.filter((e) => e.from.startsWith('mark://team-a/flood-')).length;
    assert.ok(flooded > 0 && flooded < floodDocuments * 1000, `team-a kept ${flooded} links`);
    assert.equal(teamA?.exportLinksCut, floodDocuments * 1000 - flooded);
    assert.equal(summary.worlds.find((w) => w.world === 'team-b')?.exportLinksCut, 0);
    // The document with few links keeps them: the heaviest documents are cut first.
    assert.deepEqual(linksFrom('mark://team-a/small.md'), ['mark://team-b/notes.md']);
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
