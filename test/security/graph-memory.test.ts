/**
 * Threat: one world writer exhausts the broker's memory through the link
 * graph every caller shares (src/broker/graph/graph-store.ts), which is held
 * for the life of the process. A document may be 1 MiB
 * (src/protocol/limits.ts), and the graph kept an edge for every distinct
 * link of every document it read: one 1 MiB document of `[](x) ` links added
 * 121,776 edges, about 64 MB of heap and 7.5 MB of mark_graph_export, and its
 * scan held the event loop for 0.6-1.5 s. A mark_graph crawl of 200 such
 * documents (or the WATCH refreshes after their writer touches them) needed
 * gigabytes: the writer could crash the broker, and with it every caller.
 *
 * Both attacks succeeded before the fix (checked by running this file against
 * it): the shared graph kept all 121,776 edges of the large document, and the
 * flood of one world's documents was recorded whole, so one world held as
 * many links as its writer chose to write.
 *
 * Real QUIC worlds, the real broker and the real MCP SDK client; the store
 * test below uses the real GraphStore with its default bounds.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { CrawledGraph } from '../../src/broker/graph/crawled-graph.ts';
import { GraphStore } from '../../src/broker/graph/graph-store.ts';
import { isError, resultText, startStack, type Stack } from '../e2e/stack-fixture.ts';
import { linkFlood } from '../support/link-flood.ts';

// The documented bounds (docs/security.md, "Limits and defaults"), written out
// here so the test states them rather than reading them from the code it tests.
const linksPerDocument = 1000;
const edgesPerWorld = 25_000;
const edgesInAll = 100_000;
const nodesInAll = 50_000;

type GraphAnswer = {
  node_count: number;
  edge_count: number;
  nodes: Array<{ url: string; status: string; links_cut?: boolean }>;
  edges: Array<{ from: string; to: string }>;
  next_offset?: number;
};

describe('security: one writer cannot exhaust the broker through the link graph', () => {
  let stack: Stack;
  let alice: Client;
  let mallory: Client;

  before(async () => {
    // Reading the whole graph takes one mark_graph_export call per 64 KiB of rows, more than the
    // per-caller budget allows in a minute; budgets are test/security/budgets.test.ts's subject.
    // This file tests memory bounds, not speed: on a loaded machine a FETCH of the 1 MiB document can
    // take longer than the fixture's 3 s, and the crawl would record an error node instead of reading it.
    stack = await startStack({
      worlds: ['team-a', 'team-b'],
      brokerConfig: { rateLimit: { disabled: true }, dialerExtra: { requestTimeout: '120s' } },
    });
    alice = await stack.connect();
    mallory = await stack.connect(await stack.token('mallory@example.com'));
  });
  after(async () => stack?.close());

  const publish = async (url: string, body: string) => {
    const answer = await alice.callTool({ name: 'mark_publish', arguments: { url, body, expected_version: 0 } });
    assert.equal(isError(answer), false, resultText(answer));
  };
  /** The whole graph, read page by page (mark_graph_export answers at most 64 KiB of rows at a time). */
  const exported = async (): Promise<GraphAnswer> => {
    const answer = await alice.callTool({ name: 'mark_graph_export', arguments: {} });
    assert.equal(isError(answer), false, resultText(answer));
    const whole = answer.structuredContent as GraphAnswer;
    for (let offset = whole.next_offset; offset !== undefined; ) {
      const next = await alice.callTool({ name: 'mark_graph_export', arguments: { offset } });
      assert.equal(isError(next), false, resultText(next));
      const page = next.structuredContent as GraphAnswer;
      whole.nodes.push(...page.nodes);
      whole.edges.push(...page.edges);
      offset = page.next_offset;
    }
    return whole;
  };

  it('keeps the first 1000 distinct links of a 1 MiB document of links, and says its links were cut', async () => {
    const url = 'mark://team-a/big.md';
    await publish(url, linkFlood('big', 1_048_000));
    const answer = await mallory.callTool({ name: 'mark_graph', arguments: { url, depth: 1 } });
    assert.equal(isError(answer), false, resultText(answer));
    const crawled = answer.structuredContent as GraphAnswer;
    const node = crawled.nodes.find((node) => node.url === url);
    // Read first: a document the crawl could not fetch has no links to cut, and the reason is in the text.
    assert.equal(node?.status, 'ok', resultText(answer));
    assert.equal(node.links_cut, true);
    assert.match(resultText(answer), /links cut/i);
    // Bounds printed as every broker count is (src/broker/count-text.ts).
    assert.match(resultText(answer), /at most 1,000 distinct links of a document, 25,000 of one crawl and 25,000 of/);
    const graph = await exported();
    assert.equal(graph.edges.filter((edge) => edge.from === url).length, linksPerDocument);
    assert.equal(graph.nodes.find((node) => node.url === url)?.links_cut, true);
  });

  it("holds one world's documents to its share of the graph, and another world's are still recorded", async () => {
    const documents = 27;
    const index: string[] = ['# Flood', ''];
    for (let d = 0; d < documents; d++) {
      await publish(`mark://team-a/flood-${d}.md`, linkFlood(`f${d}`, 20_000));
      index.push(`[${d}](flood-${d}.md)`);
    }
    await publish('mark://team-a/flood.md', `${index.join('\n')}\n`);
    const flood = await mallory.callTool({
      name: 'mark_graph',
      arguments: { url: 'mark://team-a/flood.md', depth: 1 },
    });
    assert.equal(isError(flood), false, resultText(flood));
    assert.match(resultText(flood), /not recorded|links cut/i);

    let graph = await exported();
    const teamA = graph.edges.filter((edge) => edge.from.startsWith('mark://team-a/'));
    assert.ok(teamA.length <= edgesPerWorld, `team-a holds ${teamA.length} edges`);
    // Nothing recorded earlier was pushed out to make room.
    assert.equal(graph.edges.filter((edge) => edge.from === 'mark://team-a/big.md').length, linksPerDocument);

    await publish('mark://team-b/notes.md', '# Notes\n\n[Plan](plan.md)\n');
    const other = await alice.callTool({ name: 'mark_graph', arguments: { url: 'mark://team-b/notes.md', depth: 1 } });
    assert.equal(isError(other), false, resultText(other));
    graph = await exported();
    assert.deepEqual(
      graph.edges.filter((edge) => edge.from === 'mark://team-b/notes.md').map((edge) => edge.to),
      ['mark://team-b/plan.md'],
    );
  });
});

describe('security: the whole link graph is bounded, and full means new documents are not recorded', () => {
  /** One crawl's worth of documents of `world`, each with `links` distinct links. */
  const crawlOf = (world: string, first: number, documents: number, links: number) => {
    const graph = new CrawledGraph();
    for (let d = first; d < first + documents; d++) {
      const url = `mark://${world}/doc-${d}.md`;
      graph.addNode({ url, title: `Doc ${d}`, status: 'ok', linkCount: links });
      for (let i = 0; i < links; i++)
        graph.addEdge({ from: url, to: `mark://${world}/t-${d}-${i}.md`, rel: '', label: '', anchor: '', count: 1 });
    }
    return graph;
  };

  it('never holds more than its bounds, whatever the writers of many worlds publish', () => {
    const store = new GraphStore();
    for (const world of ['w1', 'w2', 'w3', 'w4', 'w5', 'w6'])
      for (let batch = 0; batch < 4; batch++) store.merge(crawlOf(world, batch * 10, 10, linksPerDocument));
    assert.ok(store.edgeCount <= edgesInAll, `${store.edgeCount} edges`);
    assert.ok(store.nodeCount <= nodesInAll, `${store.nodeCount} nodes`);
    // The first worlds' documents were not pushed out by the later ones.
    assert.equal(store.edgesFrom('mark://w1/doc-0.md').length, linksPerDocument);
    const late = store.merge(crawlOf('w7', 0, 1, 5));
    assert.deepEqual(late.notRecorded, ['mark://w7/doc-0.md']);
    assert.equal(store.node('mark://w7/doc-0.md'), undefined);
  });
});
