/**
 * Threat: a writer of the hub speaks for every world in the link graph. The
 * hub's `/graph.md` is the federation crawl's output and is seeded as speaking
 * for every world; the crawl reads its previous run back from that document,
 * the hub's `/index/<host:port>.md` and `/.demarkus/crawl-state/<world>.md`.
 *
 * The attacks succeeded before the fix (checked by running this file against
 * it): any identity the hub's allowlist admits (every one, by default)
 * published a forged `mark://root/graph.md` through mark_publish, and every
 * caller's mark_backlinks on a team-a document showed the planted team-a
 * source and title; a crawl state whose `Changed-After` lay in the future
 * made every later crawl fetch 0 documents and republish what the forged
 * state vouched for, however team-a's documents changed.
 *
 * The broker now refuses every caller write to the hub's generated paths
 * (only the federation crawl writes them, through the world gateway), and the
 * crawl distrusts a state whose cutoff is later than its own clock.
 *
 * Real QUIC worlds, the real broker, the real MCP SDK client, the real crawl.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { buildExport } from '../../src/broker/graph/graph-export.ts';
import { parseExport } from '../../src/broker/graph/graph-export.ts';
import { runFederationCrawl } from '../../src/broker/graph/federation/federation-crawl.ts';
import { TestGateway, writerIdentity } from '../broker/graph/test-gateway.ts';
import { isError, resultText, startStack, type Stack } from '../e2e/stack-fixture.ts';

const planted = 'PLANTED by a hub writer';

describe("security: only the federation crawl writes the hub's generated documents", () => {
  let stack: Stack;
  let mallory: Client;
  let indexUrl: string;
  const call = (name: string, args: Record<string, unknown>) => mallory.callTool({ name, arguments: args });

  before(async () => {
    stack = await startStack({ worlds: ['root', 'team-a'] });
    mallory = await stack.connect(await stack.token('mallory@example.com'));
    indexUrl = `mark://root/index/localhost:${stack.worlds.get('team-a')!.port}.md`;
    const target = await call('mark_publish', {
      url: 'mark://team-a/target.md',
      body: '# Target\n',
      expected_version: 0,
    });
    assert.equal(isError(target), false, resultText(target));
  });
  after(async () => stack?.close());

  it("refuses a forged hub /graph.md, so no caller's backlinks show its rows", async () => {
    const forged = buildExport(
      new Date('2026-12-03T00:00:00Z'),
      [{ url: 'mark://team-a/planted.md', title: planted, status: 'ok', linkCount: 1 }],
      [
        {
          from: 'mark://team-a/planted.md',
          to: 'mark://team-a/target.md',
          rel: '',
          label: 'see',
          anchor: '',
          count: 1,
        },
      ],
    );
    const published = await call('mark_publish', { url: 'mark://root/graph.md', body: forged, expected_version: 0 });
    assert.equal(isError(published), true, resultText(published));
    assert.equal(
      resultText(published),
      "publish refused: mark://root/graph.md is written only by the federation crawl (demarkus-broker crawl): the hub's /graph.md, /index/<host:port>.md and /.demarkus/ documents are its output, which every broker trusts for every world",
    );
    const alice = await stack.connect();
    const backlinks = resultText(
      await alice.callTool({ name: 'mark_backlinks', arguments: { url: 'mark://team-a/target.md' } }),
    );
    assert.ok(!backlinks.includes(planted), backlinks);
    assert.ok(!backlinks.includes('mark://team-a/planted.md'), backlinks);
  });

  it('refuses every write tool on every generated path of the hub, however the path is spelled', async () => {
    const attempts: Array<[string, Record<string, unknown>]> = [
      ['mark_publish', { url: 'mark://root//graph.md', body: '# G\n', expected_version: 0 }],
      ['mark_publish', { url: 'mark://root/./graph.md', body: '# G\n', expected_version: 0 }],
      ['mark_publish', { url: 'mark://root/graph.md/', body: '# G\n', expected_version: 0 }],
      ['mark_publish', { url: 'mark://root/.demarkus/crawl-state/team-a.md', body: '# S\n', expected_version: 0 }],
      ['mark_publish', { url: indexUrl, body: '# I\n', expected_version: 0 }],
      ['mark_graph_publish', { url: 'mark://root/graph.md', expected_version: 0 }],
      ['mark_append', { url: 'mark://root/graph.md', body: 'more\n', expected_version: 0 }],
      ['mark_archive', { url: 'mark://root/graph.md' }],
      ['mark_index', { source: 'mark://team-a/', target: indexUrl, force: true }],
    ];
    for (const [tool, args] of attempts) {
      const result = await call(tool, args);
      assert.equal(isError(result), true, `${tool} ${JSON.stringify(args)}: ${resultText(result)}`);
      assert.match(resultText(result), /is written only by the federation crawl/, `${tool} ${JSON.stringify(args)}`);
    }
    for (const url of ['mark://root/graph.md', 'mark://root/.demarkus/crawl-state/team-a.md', indexUrl])
      assert.match(resultText(await call('mark_fetch', { url })), /^status: not-found\n/m, url);
  });

  it("leaves a world's own /graph.md and the hub's other documents to their writers", async () => {
    for (const url of ['mark://team-a/graph.md', 'mark://root/index/team-a.md', 'mark://root/notes/graph.md']) {
      const result = await call('mark_publish', { url, body: '# Mine\n', expected_version: 0 });
      assert.equal(isError(result), false, `${url}: ${resultText(result)}`);
    }
  });

  it('lets the federation crawl write them', async () => {
    const summary = await runFederationCrawl({ gateway: stack.broker.gateway, hub: 'root', now: () => new Date() });
    const outcomes = new Map(summary.published.map((p) => [p.path, p.outcome]));
    assert.equal(outcomes.get('/graph.md'), 'published', JSON.stringify(summary.published));
    assert.equal(outcomes.get('/.demarkus/crawl-state/team-a.md'), 'published', JSON.stringify(summary.published));
  });
});

describe('security: a crawl state with a change cutoff in the future is not trusted', () => {
  let gateway: TestGateway;
  const now = () => new Date('2026-03-01T00:00:00Z');
  const crawl = () => runFederationCrawl({ gateway, hub: 'root', now, identity: writerIdentity });
  const hubText = async (path: string) =>
    Buffer.from((await gateway.read('root', { verb: 'FETCH', path })).body).toString('utf8');
  const version = async (path: string) => (await gateway.read('root', { verb: 'FETCH', path })).metadata.version ?? '0';

  before(async () => {
    gateway = await TestGateway.start([{ name: 'root' }, { name: 'team-a' }]);
    gateway.writers.add(writerIdentity.email);
    await gateway.publish('team-a', '/a.md', '# Real title\n\n[b](b.md)\n');
    await gateway.publish('team-a', '/b.md', '# B\n');
  });
  after(async () => gateway?.close());

  it('reads the world again instead of freezing its rows (written straight to the hub, as a world token holder can)', async () => {
    await crawl();
    const path = '/.demarkus/crawl-state/team-a.md';
    const forged = (await hubText(path))
      .replace(/> Changed-After: .*\n/, '')
      .replace('> Documents:', '> Changed-After: 2099-01-01T00:00:00Z\n> Documents:');
    await gateway.publish('root', path, forged, { 'expected-version': await version(path) });
    await gateway.publish('team-a', '/a.md', '# Real title v2\n\n[c](c.md)\n', { 'expected-version': '1' });
    const summary = await crawl();
    assert.ok(summary.documentsFetched >= 1, JSON.stringify(summary.worlds));
    const graph = parseExport(await hubText('/graph.md'));
    assert.equal(graph.nodes.find((n) => n.url === 'mark://team-a/a.md')?.title, 'Real title v2');
    assert.deepEqual(
      graph.edges.filter((e) => e.from === 'mark://team-a/a.md').map((e) => e.to),
      ['mark://team-a/c.md'],
    );
    assert.ok(!(await hubText(path)).includes('2099'), 'the forged cutoff is not carried forward');
  });
});
