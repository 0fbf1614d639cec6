/**
 * Threat: the broker crawls with more rights than its caller. mark_graph reads
 * every document it follows and records titles and links in the link graph
 * that every caller's mark_backlinks and mark_explore answer from; a crawl
 * that read a protected tree on the broker's rights would hand its titles and
 * links to whoever asked.
 *
 * This attack did not succeed before the fix that charges a crawl to its
 * caller (test/security/graph-fairness.test.ts): the broker's reads carry no
 * token (src/broker/worlds/mark-world-gateway.ts `read`), so the broker's
 * rights and any caller's are a world's public ones. It is kept as a guard, and
 * was checked by giving the crawl's reads the tree's read token: both tests
 * then failed.
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

describe('security: a crawl reads no more than its caller may', () => {
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
    await protect(stack, '/private/**', { probeUrl: secret });
    // An empty graph: the broker's refreshes read the tree while it was still public.
    await stack.restartBroker();
    mallory = await stack.connect(await stack.token('mallory@example.com'));
  });
  after(async () => stack?.close());

  const crawl = async (url: string): Promise<{ text: string; graph: GraphAnswer }> => {
    const answer = await mallory.callTool({ name: 'mark_graph', arguments: { url, depth: 3 } });
    assert.equal(isError(answer), false, resultText(answer));
    return { text: resultText(answer), graph: answer.structuredContent as GraphAnswer };
  };

  it('records a protected document it reaches as unauthorized, with neither its title nor its links', async () => {
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

  it('leaves nothing of the protected tree in the graph other callers read', async () => {
    const bob = await stack.connect(await stack.token('bob@example.com'));
    const backlinks = await bob.callTool({
      name: 'mark_backlinks',
      arguments: { url: 'mark://team-a/private/targets.md' },
    });
    assert.match(resultText(backlinks), /^No backlinks found for mark:\/\/team-a\/private\/targets\.md\n/);
    const exported = await bob.callTool({ name: 'mark_graph_export', arguments: {} });
    assert.doesNotMatch(resultText(exported), /takeover|targets/);
  });
});
