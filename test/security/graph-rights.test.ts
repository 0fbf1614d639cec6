/**
 * Threat: the link graph hands out what its caller may not read. mark_graph
 * reads every document it follows and records titles and links in the link
 * graph that every caller's mark_backlinks, mark_explore and
 * mark_graph_export answer from, and mark_graph_publish writes to a world.
 *
 * Two ways in. A crawl reading with the broker's rights: that never succeeded
 * (broker reads carry no token, src/broker/worlds/mark-world-gateway.ts
 * `read`), kept as a guard, checked by giving the crawl's reads the tree's read
 * token. And a tree protected after the graph recorded it: a read token added
 * to tokens.toml is no change a world reports, so the graph kept the tree's
 * titles and links; any signed-in caller read them through mark_backlinks,
 * mark_explore and mark_graph_export while mark_fetch answered unauthorized,
 * and mark_graph_publish wrote them into a public /graph.md that reseeded every
 * broker after a restart. This test used to restart the broker before
 * protecting, which hid that; it now protects the tree the graph holds, and
 * failed so before answers were cut to what the caller may read now
 * (src/broker/graph/read-check.ts).
 *
 * Real QUIC worlds, the real broker and the real MCP SDK client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isError, resultText, startStack, type Stack } from '../e2e/stack-fixture.ts';
import { protect } from './read-protection.ts';

type GraphAnswer = {
  nodes: Array<{ url: string; title: string; status: string; links: number }>;
  edges: Array<{ from: string; to: string }>;
};

describe('security: the link graph answers no more than its caller may read now', () => {
  let stack: Stack;
  let mallory: Client;
  const secret = 'mark://team-a/private/plan.md';

  before(async () => {
    stack = await startStack({ worlds: ['team-a'] });
    const alice = await stack.connect();
    const documents: Array<[string, string]> = [
      ['mark://team-a/open.md', '# Open\n\nSee [the plan](private/plan.md).\n'],
      [secret, '# Secret takeover plan\n\nStep two: [targets](targets.md), and [public](../open.md).\n'],
      ['mark://team-a/private/targets.md', '# Targets\n\nNames.\n'],
    ];
    for (const [url, body] of documents) {
      const published = await alice.callTool({ name: 'mark_publish', arguments: { url, body, expected_version: 0 } });
      assert.equal(isError(published), false, resultText(published));
    }
    // The graph holds the tree, read while it was public.
    const crawled = await alice.callTool({ name: 'mark_graph', arguments: { url: 'mark://team-a/open.md', depth: 3 } });
    assert.match(resultText(crawled), /Secret takeover plan/);
    assert.match(resultText(crawled), /"Targets"/);
    await protect(stack, '/private/**', { probeUrl: secret });
    mallory = await stack.connect(await stack.token('mallory@example.com'));
  });
  after(async () => stack?.close());

  const crawl = async (url: string): Promise<{ text: string; graph: GraphAnswer }> => {
    const answer = await mallory.callTool({ name: 'mark_graph', arguments: { url, depth: 3 } });
    assert.equal(isError(answer), false, resultText(answer));
    return { text: resultText(answer), graph: answer.structuredContent as GraphAnswer };
  };

  it('answers nothing of a tree protected after the graph recorded it', async () => {
    const bob = await stack.connect(await stack.token('bob@example.com'));
    const fetched = await bob.callTool({ name: 'mark_fetch', arguments: { url: secret } });
    assert.match(resultText(fetched), /unauthorized/);
    // The protected plan links to the public page and to the protected targets.
    const intoOpen = await bob.callTool({ name: 'mark_backlinks', arguments: { url: 'mark://team-a/open.md' } });
    assert.match(resultText(intoOpen), /^No backlinks found for mark:\/\/team-a\/open\.md\n/);
    assert.deepEqual((intoOpen.structuredContent as { backlinks: unknown[] }).backlinks, []);
    const intoTargets = await bob.callTool({
      name: 'mark_backlinks',
      arguments: { url: 'mark://team-a/private/targets.md' },
    });
    assert.match(resultText(intoTargets), /^No backlinks found for mark:\/\/team-a\/private\/targets\.md\n/);
    const card = await bob.callTool({ name: 'mark_explore', arguments: { url: 'mark://team-a/open.md' } });
    assert.equal(isError(card), false, resultText(card));
    assert.match(resultText(card), /## Backlinks \(0\)/);
    assert.doesNotMatch(resultText(card), /takeover|targets/i);
    const exported = await bob.callTool({ name: 'mark_graph_export', arguments: {} });
    assert.doesNotMatch(resultText(exported), /takeover|targets/i);
    const graph = exported.structuredContent as GraphAnswer;
    assert.deepEqual(
      graph.edges.filter((edge) => edge.from.includes('/private/')),
      [],
    );
    assert.deepEqual(
      graph.nodes.filter((node) => node.url.includes('/private/') && (node.title !== '' || node.links > 0)),
      [],
    );
    // The public page itself is still answered in full.
    assert.ok(graph.nodes.some((node) => node.url === 'mark://team-a/open.md' && node.title === 'Open'));
  });

  it('publishes no row of the protected tree, so nothing of it reseeds after a restart', async () => {
    const bob = await stack.connect(await stack.token('bob@example.com'));
    const published = await bob.callTool({
      name: 'mark_graph_publish',
      arguments: { url: 'mark://team-a/graph.md', expected_version: 0 },
    });
    assert.equal(isError(published), false, resultText(published));
    assert.match(resultText(published), /^Published graph/);
    const document = await bob.callTool({ name: 'mark_fetch', arguments: { url: 'mark://team-a/graph.md' } });
    assert.match(resultText(document), /mark:\/\/team-a\/open\.md/);
    assert.doesNotMatch(resultText(document), /takeover|targets/i);
    await stack.restartBroker();
    const carol = await stack.connect(await stack.token('carol@example.com'));
    const exported = await carol.callTool({ name: 'mark_graph_export', arguments: {} });
    assert.doesNotMatch(resultText(exported), /takeover|targets/i);
    mallory = await stack.connect(await stack.token('mallory@example.com'));
  });

  it('records a protected document a crawl reaches as unauthorized, with neither its title nor its links', async () => {
    for (const start of ['mark://team-a/open.md', secret]) {
      const { text, graph } = await crawl(start);
      assert.deepEqual(
        graph.nodes.find((node) => node.url === secret),
        { url: secret, title: '', status: 'unauthorized', links: 0 },
        start,
      );
      assert.deepEqual(
        graph.edges.filter((edge) => edge.from === secret),
        [],
        start,
      );
      assert.equal(
        graph.nodes.some((node) => node.url === 'mark://team-a/private/targets.md'),
        false,
        start,
      );
      assert.doesNotMatch(text, /takeover|targets/, start);
    }
  });
});
