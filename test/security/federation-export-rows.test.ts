/**
 * Threat: one world's many documents stop the federation's /graph.md for every
 * world. Each world's links were held to a share of the hub's `/graph.md`
 * (test/security/federation-export-share.test.ts), but not its document rows:
 * a row is about 100 bytes, so a federation of about 10,000 documents (or, as
 * here, 150 documents whose titles run to 8,000 characters) filled Mark's
 * 1 MiB body limit (src/protocol/limits.ts) with rows alone, the export was
 * refused outright, and no world's changes reached the hub while they stood.
 *
 * The attack succeeded before the fix (checked by running this file against
 * it): the crawl's /graph.md outcome was `too-large` ("even with every world's
 * links left out"), and the hub kept its previous graph, without team-b's
 * document. Each world's share of the export now covers its rows too
 * (src/broker/graph/federation/export-share.ts): the worlds over it are cut to
 * the rows that fit, their heaviest rows first, every other world publishes
 * whole, the export's `## Partial` section names the world cut so that brokers
 * seeding from it know its rows are incomplete, and the cut documents get no
 * etag, so the next crawl reads them again.
 *
 * Real QUIC worlds and the real federation crawl.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { summaryText } from '../../src/broker/graph/federation/summary-text.ts';
import { parseExport } from '../../src/broker/graph/graph-export.ts';
import type { TestGateway } from '../broker/graph/test-gateway.ts';
import { assertWithinShare, crawlPastFlood, federationHub, startFloodedFederation } from './federation-hub.ts';

const floodDocuments = 150;
const titleChars = 8000;

describe("security: one world's documents cannot stop /graph.md for the other worlds", () => {
  let gateway: TestGateway;
  const hub = federationHub(() => gateway);
  const { crawl, hubGraphText, graphOutcome } = hub;

  before(async () => {
    gateway = await startFloodedFederation(async (flooded) => {
      for (let n = 0; n < floodDocuments; n++)
        await flooded.publish('team-a', `/flood-${n}.md`, `# ${`${n}-`.padEnd(titleChars, 'x')}\n\nbody\n`);
    });
  });
  after(() => gateway?.close());

  it('publishes /graph.md within 1 MiB with every world in it, the other worlds whole, and marks the cut world partial', async () => {
    // Published within 1 MiB, root's and team-b's links whole (crawlPastFlood).
    const { summary, outcome, text, graph } = await crawlPastFlood(hub);
    const urls = new Set(graph.nodes.map((n) => n.url));
    assert.ok(urls.has('mark://root/index.md'));
    assert.ok(urls.has('mark://team-b/notes.md'));
    const teamARows = graph.nodes.filter((n) => n.url.startsWith('mark://team-a/') && n.status === 'ok').length;
    assert.ok(teamARows > 0 && teamARows < floodDocuments + 1, `team-a kept ${teamARows} rows`);
    // The cheapest rows stay: /small.md's is a fraction of a flood document's.
    assert.ok(urls.has('mark://team-a/small.md'));
    const teamA = summary.worlds.find((w) => w.world === 'team-a');
    assert.equal(teamA?.exportDocumentsCut, floodDocuments + 1 - teamARows);
    assert.equal(summary.worlds.find((w) => w.world === 'team-b')?.exportDocumentsCut, 0);
    assert.match(text, /\n## Partial\n/);
    assert.match(text, /^- team-a: /m);
    assert.doesNotMatch(text, /^- team-b: /m);
    assert.match(summaryText(summary), /team-a .*\d+ documents and \d+ links left out of \/graph\.md/);
    assert.match(outcome?.detail ?? '', /team-a/);
    assertWithinShare(summary, text, { cut: ['team-a'], whole: ['root', 'team-b'] });
  });

  it('reads the cut documents again on the next crawl instead of forgetting them', async () => {
    const before = parseExport(await hubGraphText()).nodes.filter((n) => n.url.startsWith('mark://team-a/')).length;
    const summary = await crawl();
    const teamA = summary.worlds.find((w) => w.world === 'team-a');
    // Rows alone passed team-a's share, so its documents kept without their links are cut too: /small.md.
    assert.equal(
      teamA?.fetched,
      floodDocuments + 1 - before + 1,
      'every document left out, and /small.md, is read again',
    );
    assert.equal(teamA?.skipped, before - 1, 'the documents kept whole are unchanged');
    assert.ok(['published', 'unchanged'].includes(graphOutcome(summary)?.outcome ?? ''));
  });
});
