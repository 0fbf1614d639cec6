import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { exportPageRowBytes, runFederationCrawl } from '../../src/broker/graph/index.ts';
import { isError, resultText, startStack, type Stack } from './stack-fixture.ts';

/**
 * The link graph across worlds through MCP: crawl, federation crawl publishing
 * /graph.md to the hub, a broker restart (empty memory), and backlinks that
 * answer from the hub's seed before any crawl.
 */
describe('link graph end to end', () => {
  let stack: Stack;
  let client: Client;
  const text = async (name: string, args: Record<string, unknown>) =>
    resultText(await client.callTool({ name, arguments: args }));

  before(async () => {
    stack = await startStack();
    client = await stack.connect();
    const publish = (url: string, body: string, metadata: Record<string, unknown> = {}) =>
      client.callTool({ name: 'mark_publish', arguments: { url, body, expected_version: 0, metadata } });
    await publish('mark://team-b/docs/search.md', '# Search notes\n\nRanking.\n');
    await publish(
      'mark://team-a/docs/auth.md',
      '# Auth design\n\n## Related\n\nSee [search notes](mark://team-b/docs/search.md) and [the runbook](runbook.md).\n',
    );
    await publish('mark://team-a/docs/runbook.md', '# Runbook\n\nBack to [auth](auth.md).\n', {
      'rel-supersedes': '/docs/old-runbook.md',
    });
  });
  after(() => stack.close());

  it('lists the graph tools after the gateway tools', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    const graphTools = ['mark_backlinks', 'mark_graph', 'mark_graph_export', 'mark_graph_publish'];
    for (const name of graphTools)
      assert.ok(names.indexOf(name) > names.indexOf('mark_index'), `${name} listed after mark_index`);
  });

  it('crawls across worlds and answers backlinks with provenance', async () => {
    const crawl = await text('mark_graph', { url: 'mark://team-a/docs/auth.md', depth: 2 });
    assert.match(crawl, /^Crawled \d+ nodes, \d+ edges from mark:\/\/team-a\/docs\/auth\.md\n/);
    const backlinks = await text('mark_backlinks', { url: 'mark://team-b/docs/search.md' });
    assert.match(
      backlinks,
      /^Backlinks for mark:\/\/team-b\/docs\/search\.md \(1\):\n\n- \[Auth design\]\(mark:\/\/team-a\/docs\/auth\.md\) \("search notes", #related\)\n/,
    );
    const typed = await text('mark_backlinks', { url: 'mark://team-a/docs/old-runbook.md' });
    assert.match(typed, /\[supersedes\]/);
  });

  it('publishes the federation graph to the hub, and a restarted broker answers backlinks from it before any crawl', async () => {
    const summary = await runFederationCrawl({ gateway: stack.broker.gateway, hub: 'root', now: () => new Date() });
    assert.ok(
      summary.published.some((p) => p.path === '/graph.md' && p.outcome === 'published'),
      JSON.stringify(summary.published),
    );
    const again = await runFederationCrawl({ gateway: stack.broker.gateway, hub: 'root', now: () => new Date() });
    assert.ok(
      again.published.some((p) => p.path === '/graph.md' && p.outcome === 'unchanged'),
      'an unchanged second run republishes nothing',
    );
    await stack.restartBroker();
    client = await stack.connect();
    const backlinks = await text('mark_backlinks', { url: 'mark://team-b/docs/search.md' });
    // Seeded rows are the hub's claims: the title is quoted data and the line names its origin.
    assert.match(
      backlinks,
      /- mark:\/\/team-a\/docs\/auth\.md title "Auth design" \("search notes", #related\) \(seeded from the hub's federation crawl, mark:\/\/root\/graph\.md\)/,
    );
    const card = await text('mark_explore', { url: 'mark://team-b/docs/search.md' });
    assert.match(card, /## Backlinks \(1\)\n- mark:\/\/team-a\/docs\/auth\.md title "Auth design"/);
  });

  it('exports the graph in the /graph.md format and publishes it with retention', async () => {
    const exported = await text('mark_graph_export', {});
    assert.match(
      exported,
      /^# Document Graph\n\n> Exported: .+Z\n> Nodes: \d+\n> Edges: \d+\n\n## Nodes\n\n\| URL \| Title \| Status \| Links \|\n/,
    );
    const published = await client.callTool({
      name: 'mark_graph_publish',
      arguments: { url: 'mark://root/graphs/latest.md', expected_version: 0 },
    });
    assert.equal(isError(published), false, resultText(published));
    assert.match(
      resultText(published),
      /^Published graph \(\d+ nodes, \d+ edges\) to mark:\/\/root\/graphs\/latest\.md\nstatus: created\n/,
    );
  });

  it('says a graph publish the world refused was not published, and why, rather than "Published"', async () => {
    const again = await client.callTool({
      name: 'mark_graph_publish',
      arguments: { url: 'mark://root/graphs/latest.md', expected_version: 0 },
    });
    // The world's status is the tool's answer, not a tool error (as for mark_publish with on_conflict=fail).
    assert.equal(isError(again), false, resultText(again));
    assert.match(
      resultText(again),
      /^Graph \(\d+ nodes, \d+ edges\) not published to mark:\/\/root\/graphs\/latest\.md: the world answered conflict\nstatus: conflict\nserver-version: 1\n/,
    );
    assert.equal((again.structuredContent as { status: string }).status, 'conflict');
  });

  it('answers a large graph in pages of at most 64 KiB of rows, each saying what it leaves out, and the pages hold the whole graph', async () => {
    // Before pages, this graph came back whole: every row as text and again as structuredContent.
    const url = 'mark://team-a/docs/many-links.md';
    const links = Array.from({ length: 1000 }, (_, i) => `- [link ${i}](https://example.com/${'p'.repeat(100)}/${i})`);
    await client.callTool({
      name: 'mark_publish',
      arguments: { url, body: `# Many links\n\n${links.join('\n')}\n`, expected_version: 0 },
    });
    await client.callTool({ name: 'mark_graph', arguments: { url, depth: 1 } });
    type Page = {
      node_count: number;
      edge_count: number;
      nodes: { url: string }[];
      edges: { from: string; to: string; rel: string }[];
      offset: number;
      next_offset?: number;
    };
    const nodes = new Set<string>();
    const edges = new Set<string>();
    let offset: number | undefined = 0;
    let pages = 0;
    let last = '';
    while (offset !== undefined) {
      const answer = await client.callTool({ name: 'mark_graph_export', arguments: { offset } });
      assert.equal(isError(answer), false, resultText(answer).slice(0, 300));
      const text = resultText(answer);
      const page = answer.structuredContent as Page;
      const shown = page.nodes.length + page.edges.length;
      assert.match(
        text,
        new RegExp(`^# Document Graph\n\n> Exported: .+Z\n> Nodes: ${page.node_count}\n> Edges: ${page.edge_count}\n`),
      );
      const rows = text.split('\n').filter((line) => line.startsWith('| ') && !/^\| (URL|From) \|/.test(line));
      assert.equal(rows.length, shown, 'the text lists the rows structuredContent holds');
      assert.ok(
        Buffer.byteLength(rows.map((row) => `${row}\n`).join('')) <= exportPageRowBytes,
        'rows within the bound',
      );
      const total = page.node_count + page.edge_count;
      const end: number = offset + shown;
      assert.match(
        text,
        new RegExp(
          `\n## Page\n\nThis answer lists rows ${offset + 1} to ${end} of the graph's ${total} rows \\(${page.node_count} nodes, then ${page.edge_count} edges\\), at most 64 KiB of rows per answer: ${total - shown} rows are left out\\. `,
        ),
      );
      if (page.next_offset !== undefined) {
        assert.equal(page.next_offset, end);
        assert.ok(text.includes(`Call mark_graph_export with offset ${end} for the next rows.`), text.slice(-600));
      }
      for (const node of page.nodes) nodes.add(node.url);
      for (const edge of page.edges) edges.add(`${edge.from} ${edge.to} ${edge.rel}`);
      offset = page.next_offset;
      pages += 1;
      last = text;
      if (offset === undefined) {
        assert.equal(nodes.size, page.node_count, 'the pages hold every node once');
        assert.equal(edges.size, page.edge_count, 'the pages hold every edge once');
        assert.ok(page.edge_count >= 1000, `${page.edge_count} edges`);
      }
    }
    assert.ok(pages > 2, `${pages} pages`);
    assert.match(last, /These are the last rows; offset 0 reads the first\./);
    const beyond = await client.callTool({ name: 'mark_graph_export', arguments: { offset: 1_000_000 } });
    assert.match(resultText(beyond), /\n## Page\n\nNo rows from offset 1000000: the graph holds \d+ rows /);
  });
});
