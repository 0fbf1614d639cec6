/**
 * Threat: one world writer stops the federation's link graph for everybody.
 * The federation crawl (`demarkus-broker crawl`) publishes every world's links
 * in one hub document, `/graph.md`, which every broker seeds its backlinks
 * from, and a Mark body is at most 1 MiB (src/protocol/limits.ts). A document
 * may itself be 1 MiB of distinct links (about 121,000 of them).
 *
 * The attack succeeded before the fix (checked by running this file against
 * it): the crawl kept every link of every document, so one 1 MiB document of
 * links in team-a made a /graph.md of about 7.5 MB; it was refused as
 * `too-large` ("N bytes exceeds the 1048576-byte body limit", nothing more),
 * the crawl state was withheld, and no world's changes reached the hub again
 * while the document stood. The crawl now keeps a document's links within the
 * link graph's per-document bounds (src/broker/graph/graph-bounds.ts). Many
 * link-heavy documents in one world are the next attack, answered by each
 * world's share of the export (test/security/federation-export-share.test.ts).
 *
 * Real QUIC worlds and the real federation crawl.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { parseExport } from '../../src/broker/graph/graph-export.ts';
import { TestGateway, writerIdentity } from '../broker/graph/test-gateway.ts';
import { linkFlood } from '../support/link-flood.ts';
import { federationHub } from './federation-hub.ts';

// The documented bound (docs/security.md, "Limits and defaults"), written out
// so the test states it rather than reading it from the code it tests.
const linksPerDocument = 1000;

describe('security: one world writer cannot stop the federation crawl from publishing /graph.md', () => {
  let gateway: TestGateway;
  const { crawl, hubGraphText, graphOutcome } = federationHub(() => gateway);

  before(async () => {
    gateway = await TestGateway.start([{ name: 'root' }, { name: 'team-a' }, { name: 'team-b' }]);
    gateway.writers.add(writerIdentity.email);
    await gateway.publish('team-b', '/notes.md', '# Team B notes\n\n[Root](mark://root/index.md)\n');
    await gateway.publish('root', '/index.md', '# Hub\n');
  });
  after(() => gateway?.close());

  it('publishes /graph.md with the first 1000 links of a 1 MiB document of links, and every other world', async () => {
    await gateway.publish('team-a', '/big.md', linkFlood('big', 1_048_000));
    const summary = await crawl();
    assert.equal(graphOutcome(summary)?.outcome, 'published', JSON.stringify(graphOutcome(summary)));
    const graph = parseExport(await hubGraphText());
    assert.equal(graph.edges.filter((edge) => edge.from === 'mark://team-a/big.md').length, linksPerDocument);
    assert.ok(graph.edges.some((edge) => edge.from === 'mark://team-b/notes.md'));
    assert.equal(summary.worlds.find((w) => w.world === 'team-a')?.linksCut, 1);
  });
});
