/**
 * A graph answer decides the readability of many documents of one folder with
 * one tokenless LIST of the folder (src/broker/graph/folder-read-check.ts)
 * instead of one check per document: a world allows the broker's one address
 * 50 requests a second, shared by every caller. What the LIST does not name (a
 * protected document, a refused LIST) still gets its own check, and is never
 * shown on doubt. Real QUIC worlds with real tokens.toml read rules.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BrokerGraph } from '../../../src/broker/graph/graph-service.ts';
import { graphTools, runTool } from '../../../src/broker/mcp/index.ts';
import { MemorySession, toolContext } from '../mcp/helpers/context.ts';
import { TestGateway, writerIdentity } from './test-gateway.ts';

const now = () => new Date('2026-03-01T00:00:00Z');
const target = 'mark://team-a/docs/a.md';
const documents = 40;
const open = Array.from({ length: documents }, (_, i) => `/f/${String(i).padStart(2, '0')}.md`);

describe('graph read checks by folder', () => {
  let gateway: TestGateway;
  const backlinks = (graph: BrokerGraph) => {
    const tool = graphTools.find((t) => t.name === 'mark_backlinks')!;
    const ctx = toolContext(gateway, { identity: writerIdentity, session: new MemorySession(null), graph, now });
    return runTool(tool, { url: target }, ctx);
  };
  const graphOver = (paths: readonly string[]) => {
    const graph = new BrokerGraph({ gateway, now });
    const sources = paths.map((path) => `mark://team-a${path}`);
    graph.store.seedFromExport(
      sources.map((url) => ({ url, title: 'S', status: 'ok', linkCount: 1 })),
      sources.map((from) => ({ from, to: target, rel: '', label: 'a', anchor: '', count: 1 })),
    );
    return graph;
  };
  // Read checks only: a graph answer also waits for the world's /graph.md (graph-service.ts).
  const checks = () =>
    gateway.calls.filter(({ path }) => path !== '/graph.md').map(({ verb, path }) => `${verb} ${path}`);
  const probe = (path: string) => `FETCH ${path}/v2147483647`;
  const shown = (result: { structured?: unknown }) =>
    (result.structured as { backlinks: { url: string }[] }).backlinks.map((b) => b.url.replace('mark://team-a', ''));

  before(async () => {
    gateway = await TestGateway.start([
      {
        name: 'team-a',
        tokens: [
          { label: 'writer', paths: ['/**'], operations: ['publish'] },
          { label: 'secret', paths: ['/f/secret.md', '/p/**'], operations: ['read'] },
        ],
      },
    ]);
    await gateway.publish('team-a', '/docs/a.md', '# A\n');
    for (const path of [...open, '/f/secret.md', '/p/1.md', '/p/2.md', '/p/3.md'])
      await gateway.publish('team-a', path, '# S\n\n[a](../docs/a.md)\n');
    await gateway.archive('team-a', '/f/00.md');
  });
  after(() => gateway?.close());

  it('sends one LIST for a folder of 40 readable documents, and still withholds the protected one in it', async () => {
    gateway.calls.length = 0;
    const result = await backlinks(graphOver([...open, '/f/secret.md']));
    assert.deepEqual(shown(result), open);
    // One LIST page names the 40 (the archived /f/00.md too); the protected document, not listed, is checked alone.
    assert.deepEqual(checks(), ['LIST /f/', probe('/f/secret.md')]);
  });

  it('checks each document when the folder LIST is refused, and shows none of a protected folder', async () => {
    gateway.calls.length = 0;
    const result = await backlinks(graphOver(['/p/1.md', '/p/2.md', '/p/3.md']));
    assert.deepEqual(shown(result), []);
    assert.deepEqual(gateway.callsTo('LIST'), [
      { world: 'team-a', verb: 'LIST', path: '/p/', metadata: { 'page-size': '1000', 'include-archived': 'true' } },
    ]);
    assert.deepEqual(checks().slice(1).sort(), ['/p/1.md', '/p/2.md', '/p/3.md'].map(probe));
  });

  it('checks documents one by one in a folder holding fewer than three of them', async () => {
    gateway.calls.length = 0;
    const result = await backlinks(graphOver(['/f/01.md', '/f/secret.md']));
    assert.deepEqual(shown(result), ['/f/01.md']);
    assert.deepEqual(checks().sort(), [probe('/f/01.md'), probe('/f/secret.md')]);
  });
});
