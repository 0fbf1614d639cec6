import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { BrokerGraph } from '../../../src/broker/graph/graph-service.ts';
import { edgeAnnotation, goQuote } from '../../../src/broker/graph/go-format.ts';
import { renderBacklinksSection } from '../../../src/broker/graph/backlinks-section.ts';
import { allTools, graphTools, runTool } from '../../../src/broker/mcp/index.ts';
import type { ToolResult } from '../../../src/broker/mcp/definitions.ts';
import { MemorySession, toolContext } from './helpers/context.ts';
import type { Identity } from '../../../src/broker/identity.ts';
import { readerIdentity, TestGateway, writerIdentity } from '../graph/test-gateway.ts';
import { backlinksPageLimit } from '../../../src/broker/mcp/tools/backlinks.ts';
import { graphTextListCap } from '../../../src/broker/mcp/tools/graph-crawl.ts';

const now = () => new Date('2026-03-01T00:00:00Z');

describe('graph tools', () => {
  let gateway: TestGateway;
  let graph: BrokerGraph;
  const tools = new Map(graphTools.map((tool) => [tool.name, tool]));
  const call = (
    name: string,
    args: Record<string, unknown>,
    identity: Identity = writerIdentity,
  ): Promise<ToolResult> => {
    const ctx = toolContext(gateway, { identity, session: new MemorySession(null), graph, now });
    return runTool(tools.get(name)!, args, ctx);
  };

  before(async () => {
    gateway = await TestGateway.start([{ name: 'team-a' }, { name: 'root' }]);
    gateway.writers.add(writerIdentity.email);
    await gateway.publish(
      'team-a',
      '/index.md',
      '# Team A hub\n\n## Services\n\n- [Applications](docs/a.md) and [again](docs/a.md)\n',
    );
    await gateway.publish('team-a', '/docs/a.md', '# Applications\n');
    await gateway.publish('team-a', '/docs/b.md', 'untitled, supersedes a\n', { 'rel-supersedes': 'a.md' });
  });
  after(() => gateway.close());
  beforeEach(() => {
    graph = new BrokerGraph({ gateway, now });
  });

  it('offers the graph tools after mark_index only when the broker keeps a graph', () => {
    const names = (tools: ReturnType<typeof allTools>) => tools.map((tool) => tool.name);
    assert.ok(!names(allTools()).includes('mark_graph'));
    const withGraph = names(allTools({ graph: true }));
    const at = withGraph.indexOf('mark_index') + 1;
    assert.deepEqual(withGraph.slice(at, at + 5), [
      'mark_backlinks',
      'mark_graph',
      'mark_graph_export',
      'mark_graph_publish',
      'mark_worlds',
    ]);
  });

  it('answers plainly when reached on a broker without a graph', async () => {
    const ctx = toolContext(gateway, { identity: writerIdentity, session: new MemorySession(null), now });
    const offered = { url: 'mark://team-a/index.md', expected_version: 0 };
    for (const tool of graphTools) {
      // Each tool is given only the arguments it takes: one it does not take is refused before the tool runs.
      const args = Object.fromEntries(Object.entries(offered).filter(([name]) => name in tool.inputSchema));
      assert.deepEqual(await runTool(tool, args, ctx), {
        text: 'this broker keeps no link graph',
        isError: true,
      });
    }
  });

  it('offers the four graph tools with read-only hints', () => {
    assert.deepEqual(
      [...tools.values()].map((t) => [t.name, t.readOnly]),
      [
        ['mark_backlinks', true],
        ['mark_graph', true],
        ['mark_graph_export', true],
        ['mark_graph_publish', false],
      ],
    );
    for (const tool of tools.values()) assert.ok(tool.description.length > 40);
  });

  describe('mark_backlinks', () => {
    it('requires a url', async () => {
      assert.deepEqual(await call('mark_backlinks', { url: '' }), { text: 'url is required', isError: true });
    });

    it('refuses malformed tool URLs with the reference messages', async () => {
      const cases: Array<[string, string]> = [
        ['https://team-a/x.md', 'invalid URL: unsupported scheme "https" (expected mark://)'],
        ['mark:///x.md', 'invalid URL: missing world name in URL "mark:///x.md" (expected mark://{worldName}/{path})'],
        [
          'mark://team-a:6309/x.md',
          'invalid URL: invalid URL "mark://team-a:6309/x.md": world host must not carry a port (the broker resolves world names internally); known worlds: team-a, root',
        ],
        ['mark://u@team-a/x.md', 'invalid URL: invalid URL "mark://u@team-a/x.md": world host must not carry userinfo'],
        [
          'mark://team-a/x.md?q=1',
          'invalid URL: invalid URL "mark://team-a/x.md?q=1": query parameters are not supported',
        ],
        ['mark://team-a/x.md#s', 'invalid URL: invalid URL "mark://team-a/x.md#s": fragments are not supported'],
      ];
      for (const [url, text] of cases)
        assert.deepEqual(await call('mark_backlinks', { url }), { text, isError: true }, url);
    });

    it('says how to populate the graph when nothing links to the document', async () => {
      const result = await call('mark_backlinks', { url: 'mark://team-a/docs/a.md' });
      assert.equal(
        result.text,
        "No backlinks found for mark://team-a/docs/a.md\nRun mark_graph to populate the broker's graph store. (Note: the broker's graph store is ephemeral; it resets on broker restart.)",
      );
      assert.deepEqual(result.structured, {
        status: 'ok',
        url: 'mark://team-a/docs/a.md',
        count: 0,
        offset: 0,
        backlinks: [],
      });
    });

    it('caps the text at graphTextListCap lines and pages structuredContent by offset and limit', async () => {
      // 2,500 documents linking to one: the text lists 100 and structuredContent one page at a time.
      // The world has no such documents, so each is checked alone: lift the world's read-check budget,
      // which this test is not about (test/broker/graph/read-check-budget.test.ts is).
      graph = new BrokerGraph({ gateway, now, readCheck: { worldBudget: { perMinute: 600_000, burst: 2500 } } });
      const target = 'mark://team-a/docs/a.md';
      const sources = Array.from({ length: 2500 }, (_, i) => `mark://team-a/s/${String(i).padStart(4, '0')}.md`);
      graph.store.seedFromExport(
        sources.map((url) => ({ url, title: 'S', status: 'ok', linkCount: 1 })),
        sources.map((from) => ({ from, to: target, rel: '', label: 'a', anchor: '', count: 1 })),
      );
      const first = await call('mark_backlinks', { url: target });
      const lines = first.text.split('\n').filter((line) => line.startsWith('- '));
      assert.equal(lines.length, graphTextListCap);
      assert.match(first.text, /^Backlinks for mark:\/\/team-a\/docs\/a\.md \(2500, listing 1 to 100\):\n/);
      assert.match(
        first.text,
        // Counts printed as every tool prints them (src/broker/count-text.ts); offsets stay digits, to be sent back.
        /\n\+2,400 more backlinks \(the text lists 100 at a time: ask again with offset 100; structuredContent holds 1,000 from offset 0, then next_offset 1000\)\n$/,
      );
      const data = first.structured as {
        count: number;
        offset: number;
        next_offset?: number;
        backlinks: { url: string }[];
      };
      assert.equal(data.count, 2500);
      assert.equal(data.backlinks.length, backlinksPageLimit);
      assert.equal(data.next_offset, 1000);
      const last = await call('mark_backlinks', { url: target, offset: 2400, limit: 200 });
      const lastData = last.structured as typeof data;
      assert.deepEqual(
        lastData.backlinks.map((b) => b.url),
        sources.slice(2400),
      );
      assert.equal(lastData.next_offset, undefined);
      assert.match(last.text, /\(2500, listing 2401 to 2500\):\n/);
      assert.doesNotMatch(last.text, /more backlinks/);
      assert.deepEqual(await call('mark_backlinks', { url: target, limit: backlinksPageLimit + 1 }), {
        text: `limit must be between 1 and ${backlinksPageLimit}`,
        isError: true,
      });
    });

    it('lists annotated backlinks, titled sources as links', async () => {
      await graph.crawl('mark://team-a/index.md', gateway, 1);
      await graph.crawl('mark://team-a/docs/b.md', gateway, 1);
      const result = await call('mark_backlinks', { url: 'mark://team-a/docs/a.md' });
      assert.equal(
        result.text,
        'Backlinks for mark://team-a/docs/a.md (2):\n\n- mark://team-a/docs/b.md [supersedes]\n- [Team A hub](mark://team-a/index.md) ("Applications", #services, x2)\n',
      );
      assert.deepEqual(
        (result.structured!.backlinks as Array<{ url: string; count: number; provenance: string }>).map((b) => [
          b.url,
          b.count,
          b.provenance,
        ]),
        [
          ['mark://team-a/docs/b.md', 1, 'crawl'],
          ['mark://team-a/index.md', 2, 'crawl'],
        ],
      );
    });
  });

  describe('mark_graph', () => {
    it('reports the crawl as the reference text', async () => {
      const result = await call('mark_graph', { url: 'mark://team-a/index.md', depth: 1 });
      assert.equal(
        result.text,
        'Crawled 2 nodes, 1 edges from mark://team-a/index.md\n\nNodes:\n' +
          '  [ok       ] mark://team-a/docs/a.md                  "Applications"  0 links\n' +
          '  [ok       ] mark://team-a/index.md                   "Team A hub"  2 links\n' +
          '\nEdges:\n  mark://team-a/index.md -> mark://team-a/docs/a.md ("Applications", #services, x2)\n',
      );
      assert.equal(result.isError, undefined);
    });

    it('shows (no title) and the rel of typed edges', async () => {
      const result = await call('mark_graph', { url: 'mark://team-a/docs/b.md' });
      assert.match(result.text, /\[ok {7}\] mark:\/\/team-a\/docs\/b\.md {18}"\(no title\)" {2}0 links\n/);
      assert.match(result.text, /mark:\/\/team-a\/docs\/b\.md -> mark:\/\/team-a\/docs\/a\.md \[supersedes\]\n/);
    });

    it('brings a depth outside 1 to 5 to the nearer end, as the Go broker does, instead of refusing it', async () => {
      for (let i = 0; i < 7; i++)
        await gateway.publish('team-a', `/chain/c${i}.md`, `# Link ${i}\n\n[next](c${i + 1}.md)\n`);
      const start = 'mark://team-a/chain/c0.md';
      const deepest = await call('mark_graph', { url: start, depth: 5 });
      assert.match(deepest.text, /^Crawled 6 nodes, /);
      assert.deepEqual(await call('mark_graph', { url: start, depth: 9 }), deepest);
      const shallowest = await call('mark_graph', { url: start, depth: 1 });
      assert.match(shallowest.text, /^Crawled 2 nodes, /);
      assert.deepEqual(await call('mark_graph', { url: start, depth: 0 }), shallowest);
      assert.deepEqual(await call('mark_graph', { url: start, depth: -3 }), shallowest);
      assert.deepEqual(await call('mark_graph', { url: start, depth: 1.5 }), {
        text: 'depth must be an integer (got number 1.5)',
        isError: true,
      });
    });

    it('lists at most 100 nodes and 100 edges in the text, then +N more, and every one in structuredContent', async () => {
      const links = Array.from({ length: 150 }, (_, i) => `[w${i}](w/${String(i).padStart(3, '0')}.md)`);
      await gateway.publish('team-a', '/wide.md', `# Wide\n\n${links.join(' ')}\n`);
      const result = await call('mark_graph', { url: 'mark://team-a/wide.md', depth: 1 });
      assert.match(result.text, /^Crawled 151 nodes, 150 edges from mark:\/\/team-a\/wide\.md\n/);
      const nodeLines = result.text.split('\n').filter((line) => line.startsWith('  ['));
      const edgeLines = result.text.split('\n').filter((line) => line.includes(' -> '));
      assert.equal(nodeLines.length, 100);
      assert.equal(edgeLines.length, 100);
      assert.match(result.text, /\n\+51 more nodes\n/);
      assert.match(result.text, /\n\+50 more edges\n/);
      const structured = result.structured as {
        node_count: number;
        edge_count: number;
        nodes: unknown[];
        edges: unknown[];
      };
      assert.equal(structured.nodes.length, 151);
      assert.equal(structured.edges.length, 150);
      assert.equal(structured.edge_count, 150);
    });

    it('refuses an unknown world and a missing url', async () => {
      assert.deepEqual(await call('mark_graph', { url: 'mark://team-z/index.md' }), {
        text: 'broker: unknown world "team-z" (not in broker config; known worlds: team-a, root)',
        isError: true,
      });
      assert.deepEqual(await call('mark_graph', { url: '' }), { text: 'url is required', isError: true });
    });
  });

  describe('mark_graph_export', () => {
    it('renders the empty store as a header with zero counts', async () => {
      assert.equal(
        (await call('mark_graph_export', {})).text,
        '# Document Graph\n\n> Exported: 2026-03-01T00:00:00Z\n> Nodes: 0\n> Edges: 0\n\n## Nodes\n\n| URL | Title | Status | Links |\n|-----|-------|--------|-------|\n',
      );
    });

    it('exports what the crawls recorded', async () => {
      await call('mark_graph', { url: 'mark://team-a/index.md', depth: 1 });
      const text = (await call('mark_graph_export', {})).text;
      assert.ok(
        text.includes('| mark://team-a/index.md | mark://team-a/docs/a.md |  | Applications | services | 2 |\n'),
        text,
      );
    });
  });

  describe('mark_graph_publish', () => {
    it('validates arguments before the write gate', async () => {
      assert.deepEqual(await call('mark_graph_publish', { url: 'mark://team-a/graph.md' }), {
        text: 'expected_version is required',
        isError: true,
      });
      assert.deepEqual(await call('mark_graph_publish', { url: 'mark://team-a/graph.md', expected_version: -1 }), {
        text: 'expected_version must be >= 0',
        isError: true,
      });
      assert.deepEqual(
        await call('mark_graph_publish', { url: 'mark://team-a/graph.md', expected_version: 0, retention: -1 }),
        { text: 'retention must be from 0 to 1000000 (0 keeps every version)', isError: true },
      );
    });

    it('advertises no metadata.retention, which the retention argument sets, and refuses one rather than drop it', async () => {
      const metadataKeys = (toolName: string) => {
        const tool = allTools({ graph: true }).find((t) => t.name === toolName)!;
        const schema = z.toJSONSchema(z.object(tool.inputSchema), { io: 'input' }) as unknown as {
          properties: { metadata: { properties: Record<string, unknown> } };
        };
        return Object.keys(schema.properties.metadata.properties);
      };
      assert.deepEqual(metadataKeys('mark_graph_publish'), ['title', 'tags', 'importance']);
      // mark_publish and mark_index pass metadata.retention to the world, which prunes by it.
      for (const name of ['mark_publish', 'mark_index'])
        assert.deepEqual(metadataKeys(name), ['title', 'tags', 'importance', 'retention'], name);
      gateway.calls.length = 0;
      assert.deepEqual(
        await call('mark_graph_publish', {
          url: 'mark://team-a/graph.md',
          expected_version: 0,
          metadata: { tags: 'graph', retention: '3' },
        }),
        {
          text: 'metadata.retention is not taken by this tool: use the retention argument (default 20, 0 keeps every version)',
          isError: true,
        },
      );
      assert.equal(gateway.calls.length, 0);
    });

    it('refuses non-writers, unverified identities and unknown worlds without sending anything', async () => {
      gateway.calls.length = 0;
      assert.deepEqual(
        await call('mark_graph_publish', { url: 'mark://team-a/graph.md', expected_version: 0 }, readerIdentity),
        { text: 'write access denied for world "team-a"', isError: true },
      );
      assert.deepEqual(
        await call(
          'mark_graph_publish',
          { url: 'mark://team-a/graph.md', expected_version: 0 },
          { ...writerIdentity, emailVerified: false },
        ),
        { text: 'identity email is not verified', isError: true },
      );
      assert.deepEqual(await call('mark_graph_publish', { url: 'mark://nowhere/graph.md', expected_version: 0 }), {
        text: 'world "nowhere" is not configured (known worlds: team-a, root)',
        isError: true,
      });
      assert.equal(gateway.calls.length, 0);
    });

    it('publishes the export with the agent and default retention of 20', async () => {
      await graph.crawl('mark://team-a/index.md', gateway, 1);
      gateway.calls.length = 0;
      const result = await call('mark_graph_publish', { url: 'mark://team-a/graph.md', expected_version: 0 });
      assert.match(
        result.text,
        /^Published graph \(2 nodes, 1 edges\) to mark:\/\/team-a\/graph\.md\nstatus: created\nversion: 1\n/,
      );
      assert.equal(result.isError, undefined);
      assert.deepEqual(gateway.callsTo('PUBLISH')[0]?.metadata, {
        agent: writerIdentity.email,
        retention: '20',
        'expected-version': '0',
      });
      const stored = await gateway.read('team-a', { verb: 'FETCH', path: '/graph.md' });
      assert.equal(Buffer.from(stored.body).toString(), (await graph.readableExport(gateway)).body);
    });

    it('prunes to the given retention, sends none for 0, and forwards conflicts verbatim', async () => {
      await call('mark_graph_publish', { url: 'mark://root/pruned.md', expected_version: 0, retention: 2 });
      await graph.crawl('mark://team-a/index.md', gateway, 1);
      await call('mark_graph_publish', { url: 'mark://root/pruned.md', expected_version: 1, retention: 2 });
      await graph.crawl('mark://team-a/docs/b.md', gateway, 1);
      await call('mark_graph_publish', { url: 'mark://root/pruned.md', expected_version: 2, retention: 2 });
      const versions = await gateway.read('root', { verb: 'VERSIONS', path: '/pruned.md' });
      assert.equal(versions.metadata.total, '2');
      gateway.calls.length = 0;
      const conflict = await call('mark_graph_publish', {
        url: 'mark://root/pruned.md',
        expected_version: 1,
        retention: 0,
      });
      assert.equal(gateway.callsTo('PUBLISH')[0]?.metadata.retention, undefined);
      assert.match(conflict.text, /\nstatus: conflict\n/);
      assert.equal(conflict.isError, undefined);
    });
  });
});

describe('edge annotation (graph.EdgeAnnotation)', () => {
  it('matches the reference format', () => {
    assert.equal(edgeAnnotation('supersedes', 'ADR 2', 'context', 3), ' [supersedes] ("ADR 2", #context, x3)');
    assert.equal(edgeAnnotation('', '', '', 1), '');
    assert.equal(edgeAnnotation('', '', 'intro', 1), ' (#intro)');
    assert.equal(edgeAnnotation('cites', '', '', 1), ' [cites]');
  });

  it('quotes labels as Go strconv.Quote does', () => {
    assert.equal(goQuote('say "hi"\\ é\t\u0001\u00a0😀'), '"say \\"hi\\"\\\\ é\\t\\x01\\u00a0😀"');
  });
});

describe('mark_explore backlinks section', () => {
  const entry = (i: number) => ({
    url: `mark://w/s${String(i).padStart(2, '0')}.md`,
    title: i % 2 ? `S${i}` : '',
    status: 'ok',
    rel: '',
    label: '',
    anchor: '',
    count: 1,
    provenance: 'crawl' as const,
  });

  it('notes when nothing is recorded', () => {
    assert.equal(
      renderBacklinksSection([]),
      "\n## Backlinks (0)\n(none recorded; run mark_graph to populate; the broker's graph store is per-pod and resets on restart)\n",
    );
  });

  it('caps the list at ten lines with an honest remainder', () => {
    const text = renderBacklinksSection(Array.from({ length: 12 }, (_, i) => entry(i)));
    assert.ok(text.startsWith('\n## Backlinks (12)\n- mark://w/s00.md\n- [S1](mark://w/s01.md)\n'));
    assert.ok(text.endsWith('- [S9](mark://w/s09.md)\n+2 more backlinks\n'));
    assert.equal(text.split('\n').length, 2 + 10 + 2);
    // The remainder as every tool prints a count; the heading keeps the reference's plain number.
    const many = renderBacklinksSection(Array.from({ length: 1012 }, (_, i) => entry(i % 100)));
    assert.ok(many.startsWith('\n## Backlinks (1012)\n'));
    assert.ok(many.endsWith('\n+1,002 more backlinks\n'));
  });

  it('says when the read-check bound withheld linking documents instead of "none recorded"', () => {
    const note = 'Some linking documents were left out.\n';
    assert.equal(renderBacklinksSection([], note), `\n## Backlinks (0+)\n${note}`);
    const text = renderBacklinksSection([entry(0)], note);
    assert.equal(text, `\n## Backlinks (1+)\n- mark://w/s00.md\n${note}`);
  });
});
