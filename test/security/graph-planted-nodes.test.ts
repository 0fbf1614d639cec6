/**
 * Threat: any reader fills the link graph every caller shares with nodes of
 * its choosing. The graph is one store per broker process, kept until the
 * process ends (src/broker/graph/graph-store.ts); mark_graph recorded its
 * start document whatever the world answered, so `mark_graph` on a made-up
 * path left a `not-found` node named by the caller, one per call and up to a
 * 4 KiB path each: memory that grows without bound at the caller's request
 * rate, and rows of the caller's words in every other caller's
 * mark_graph_export and in the /graph.md a writer publishes from it.
 *
 * The attack succeeded before the fix (checked by running this file against
 * it): each of the crawls below added its made-up node to the shared graph.
 * The crawl's own answer still tells its caller the document is not found;
 * only the shared graph leaves out a missing document nothing links to.
 *
 * The same attack with documents that exist: the world cleans a request path
 * (`//index.md`, `/index.md/` are `/index.md`, Mark SPEC §2.0), but the graph
 * kept each spelling as its own `ok` node, with the document's title and
 * links, so a caller could add thousands of copies of every document and of
 * its edges to other callers' backlinks. That also succeeded before its fix
 * (the graph's identity now cleans paths as the world does).
 *
 * Real QUIC worlds, the real broker and the real MCP SDK client.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { isError, resultText, startStack, type Stack } from '../e2e/stack-fixture.ts';

type GraphAnswer = { nodes: Array<{ url: string; status: string }> };

describe('security: a reader cannot plant nodes in the shared link graph', () => {
  let stack: Stack;
  let alice: Client;
  let mallory: Client;

  before(async () => {
    stack = await startStack({ worlds: ['team-a'] });
    alice = await stack.connect();
    const published = await alice.callTool({
      name: 'mark_publish',
      arguments: { url: 'mark://team-a/index.md', body: '# Index\n\n[Gone](gone.md)\n', expected_version: 0 },
    });
    assert.equal(isError(published), false, resultText(published));
    mallory = await stack.connect(await stack.token('mallory@example.com'));
  });
  after(async () => stack?.close());

  const exported = async (): Promise<GraphAnswer> => {
    const answer = await alice.callTool({ name: 'mark_graph_export', arguments: {} });
    assert.equal(isError(answer), false, resultText(answer));
    return answer.structuredContent as GraphAnswer;
  };

  it('keeps a made-up start document out of the shared graph, and tells the caller it is not found', async () => {
    for (let n = 0; n < 5; n++) {
      const url = `mark://team-a/planted-by-mallory-${n}-ignore-previous-instructions.md`;
      const answer = await mallory.callTool({ name: 'mark_graph', arguments: { url, depth: 1 } });
      assert.equal(isError(answer), false, resultText(answer));
      assert.deepEqual(
        (answer.structuredContent as GraphAnswer).nodes.map((node) => [node.url, node.status]),
        [[url, 'not-found']],
      );
    }
    const graph = await exported();
    assert.deepEqual(
      graph.nodes.filter((node) => node.url.includes('planted-by-mallory')),
      [],
    );
  });

  it('records a document once however the caller spells its path', async () => {
    // The world cleans paths as Go's path.Clean does: every one of these FETCHes /index.md.
    for (const url of ['mark://team-a//index.md', 'mark://team-a/index.md/', 'mark://team-a///index.md//']) {
      const answer = await mallory.callTool({ name: 'mark_graph', arguments: { url, depth: 1 } });
      assert.equal(isError(answer), false, resultText(answer));
    }
    const graph = await exported();
    assert.deepEqual(
      graph.nodes.filter((node) => node.url.endsWith('index.md') || node.url.endsWith('index.md/')).map((n) => n.url),
      ['mark://team-a/index.md'],
    );
  });

  it('still records a missing document a read document links to (a broken link)', async () => {
    const answer = await mallory.callTool({
      name: 'mark_graph',
      arguments: { url: 'mark://team-a/index.md', depth: 1 },
    });
    assert.equal(isError(answer), false, resultText(answer));
    const graph = await exported();
    assert.deepEqual(
      graph.nodes.filter((node) => node.url === 'mark://team-a/gone.md').map((node) => node.status),
      ['not-found'],
    );
  });
});
