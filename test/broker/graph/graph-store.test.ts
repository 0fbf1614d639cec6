import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildExport } from '../../../src/broker/graph/graph-export.ts';
import { GraphStore } from '../../../src/broker/graph/graph-store.ts';
import { CrawledGraph } from '../../../src/broker/graph/crawled-graph.ts';
import type { GraphEdge, GraphNode } from '../../../src/broker/graph/model.ts';

const now = () => new Date('2026-01-01T00:00:00Z');
const node = (url: string, status = 'ok', title = url.split('/').pop()!, linkCount = 0): GraphNode => ({
  url,
  title,
  status,
  linkCount,
});
const edge = (from: string, to: string, extra: Partial<GraphEdge> = {}): GraphEdge => ({
  from,
  to,
  rel: '',
  label: '',
  anchor: '',
  count: 1,
  ...extra,
});
const crawlOf = (nodes: GraphNode[], edges: GraphEdge[]) => {
  const graph = new CrawledGraph();
  for (const n of nodes) graph.addNode(n);
  for (const e of edges) graph.addEdge(e);
  return graph;
};
const A = 'mark://team-a/a.md';
const B = 'mark://team-a/b.md';
const C = 'mark://team-a/c.md';

describe('graph store merge (local crawls)', () => {
  it('replaces the edge set of every source the crawl read', () => {
    const store = new GraphStore({ now });
    store.merge(crawlOf([node(A), node(B)], [edge(A, B), edge(A, C)]));
    store.merge(crawlOf([node(A)], [edge(A, C, { label: 'see C' })]));
    assert.deepEqual(
      store.edgesFrom(A).map((e) => [e.to, e.label]),
      [[C, 'see C']],
    );
    assert.deepEqual(store.backlinks(B), []);
  });

  it('keeps the stored node and its edges when a re-crawl fails to read it (latebit-io/demarkus#222)', () => {
    const store = new GraphStore({ now });
    store.merge(crawlOf([node(A, 'ok', 'Title A', 1)], [edge(A, B, { label: 'B' })]));
    store.merge(crawlOf([node(A, 'error', '', 0)], []));
    assert.deepEqual(store.node(A), {
      url: A,
      title: 'Title A',
      status: 'ok',
      linkCount: 1,
      etag: '',
      crawledAt: now().getTime(),
    });
    assert.equal(store.backlinks(B).length, 1);
  });

  it('records never-seen unread nodes without making them authoritative', () => {
    const store = new GraphStore({ now });
    store.merge(crawlOf([node(A), node('https://example.com/x', 'external', '')], [edge(A, 'https://example.com/x')]));
    assert.equal(store.node('https://example.com/x')?.status, 'external');
    assert.equal(store.isAuthoritative('https://example.com/x'), false);
  });

  it('leaves out a document the crawl did not find when nothing links to it and the store never held it', () => {
    const store = new GraphStore({ now });
    store.merge(crawlOf([node(A, 'not-found', '')], []));
    store.merge(crawlOf([node(C, 'unauthorized', '')], []));
    assert.equal(store.nodeCount, 0);
    store.seedFromExport([node(B)], [edge(B, C)]);
    store.merge(crawlOf([node(C, 'not-found', '')], []));
    assert.equal(store.node(C)?.status, 'not-found', 'a seeded link makes it a broken link worth recording');
  });

  it('drops the edges of a document that now answers not-found', () => {
    const store = new GraphStore({ now });
    store.merge(crawlOf([node(A)], [edge(A, B)]));
    store.merge(crawlOf([node(A, 'not-found', '')], []));
    assert.equal(store.edgeCount, 0);
    assert.equal(store.node(A)?.status, 'not-found');
  });

  it('keeps a typed and a plain edge between the same pair as two edges', () => {
    const store = new GraphStore({ now });
    store.merge(
      crawlOf(
        [node(A), node(B, 'ok', 'B doc')],
        [edge(B, A, { rel: 'supersedes' }), edge(B, A, { label: 'old A', anchor: 'history' })],
      ),
    );
    assert.equal(store.edgeCount, 2);
    assert.deepEqual(store.backlinks(A), [
      {
        url: B,
        title: 'B doc',
        status: 'ok',
        rel: '',
        label: 'old A',
        anchor: 'history',
        count: 1,
        provenance: 'crawl',
      },
      { url: B, title: 'B doc', status: 'ok', rel: 'supersedes', label: '', anchor: '', count: 1, provenance: 'crawl' },
    ]);
  });

  it('records the etag of each read node', () => {
    const store = new GraphStore({ now });
    store.merge(crawlOf([node(A)], []), new Map([[A, 'abc']]));
    assert.equal(store.node(A)?.etag, 'abc');
  });

  it('is idempotent: merging the same crawl twice does not inflate counts', () => {
    const store = new GraphStore({ now });
    const graph = crawlOf([node(A)], [edge(A, B), edge(A, B)]);
    store.merge(graph);
    store.merge(graph);
    assert.deepEqual(
      store.edgesFrom(A).map((e) => e.count),
      [2],
    );
  });
});

describe('graph store seeding (SeedFromExport)', () => {
  it('answers backlinks from a seed alone', () => {
    const store = new GraphStore({ now });
    store.seedFromExport([node(A, 'ok', 'Seeded A')], [edge(A, B, { label: 'B', count: 3 })]);
    assert.deepEqual(store.backlinks(B), [
      { url: A, title: 'Seeded A', status: 'ok', rel: '', label: 'B', anchor: '', count: 3, provenance: 'seed' },
    ]);
    assert.equal(store.isAuthoritative(A), false);
  });

  it('never touches a node or edges a local crawl read (crawl beats seed)', () => {
    const store = new GraphStore({ now });
    store.merge(crawlOf([node(A, 'ok', 'Crawled A')], [edge(A, B)]));
    store.seedFromExport([node(A, 'ok', 'Seeded A')], [edge(A, C)]);
    assert.equal(store.node(A)?.title, 'Crawled A');
    assert.deepEqual(
      store.edgesFrom(A).map((e) => e.to),
      [B],
    );
  });

  it('lets a later crawl replace seeded rows', () => {
    const store = new GraphStore({ now });
    store.seedFromExport([node(A, 'ok', 'Seeded A')], [edge(A, C)]);
    store.merge(crawlOf([node(A, 'ok', 'Crawled A')], [edge(A, B)]));
    assert.equal(store.node(A)?.title, 'Crawled A');
    assert.deepEqual(
      store.edgesFrom(A).map((e) => e.to),
      [B],
    );
    assert.equal(store.isAuthoritative(A), true);
  });

  it('replaces stale seeded edges of a source whose edge set went to zero', () => {
    const store = new GraphStore({ now });
    store.seedFromExport([node(A)], [edge(A, B)]);
    store.seedFromExport([node(A)], []);
    assert.equal(store.edgeCount, 0);
  });

  it('keeps an earlier seed for sources a newer seed does not mention', () => {
    const store = new GraphStore({ now });
    store.seedFromExport([node(A)], [edge(A, B)]);
    store.seedFromExport([node(C)], [edge(C, B)]);
    assert.deepEqual(
      store.backlinks(B).map((b) => b.url),
      [A, C],
    );
  });

  it("forgets what an origin's earlier seed listed and its newer seed does not, and only that origin's", () => {
    const store = new GraphStore({ now });
    const hub = { kind: 'hub' as const, world: 'root' };
    store.seedFromExport([node(A), node(C)], [edge(A, B), edge(C, B)], hub);
    store.seedFromExport([node(B)], [], { kind: 'world', world: 'team-a' });
    store.seedFromExport([node(C)], [edge(C, B)], hub);
    assert.deepEqual(
      store.backlinks(B).map((b) => b.url),
      [C],
    );
    assert.equal(store.node(A), undefined);
    assert.equal(store.node(B)?.title, 'b.md', "team-a's own seed is not the hub's to forget");
  });

  it('a failed crawl of a seeded node leaves the seeded rows in place', () => {
    const store = new GraphStore({ now });
    store.seedFromExport([node(A, 'ok', 'Seeded A')], [edge(A, B)]);
    store.merge(crawlOf([node(A, 'error', '')], []));
    assert.equal(store.node(A)?.title, 'Seeded A');
    assert.equal(store.backlinks(B).length, 1);
  });
});

describe('graph store queries', () => {
  it('sorts backlinks by source URL, then relation', () => {
    const store = new GraphStore({ now });
    store.seedFromExport([], [edge(C, A, { rel: 'b' }), edge(B, A), edge(C, A, { rel: 'a' }), edge(C, A)]);
    assert.deepEqual(
      store.backlinks(A).map((b) => [b.url, b.rel]),
      [
        [B, ''],
        [C, ''],
        [C, 'a'],
        [C, 'b'],
      ],
    );
  });

  it('exports the whole store in /graph.md form', () => {
    const store = new GraphStore({ now });
    store.merge(crawlOf([node(A, 'ok', 'A')], [edge(A, B, { label: 'B', anchor: 'x', count: 2 })]));
    assert.equal(
      buildExport(now(), store.nodes(), store.edges()),
      '# Document Graph\n\n> Exported: 2026-01-01T00:00:00Z\n> Nodes: 1\n> Edges: 1\n\n## Nodes\n\n| URL | Title | Status | Links |\n|-----|-------|--------|-------|\n' +
        `| [${A}](${A}) | A | ok | 0 |\n\n## Edges\n\n| From | To | Rel | Label | Anchor | Count |\n|------|----|-----|-------|--------|-------|\n| ${A} | ${B} |  | B | x | 2 |\n`,
    );
  });

  it('answers backlinks for one target among 100k edges without scanning them', () => {
    // One world holding the whole store: more than its default share (src/broker/graph/graph-bounds.ts).
    const store = new GraphStore({ now, bounds: { edgesPerWorld: 100_000 } });
    const edges: GraphEdge[] = [];
    for (let i = 0; i < 100_000; i++) edges.push(edge(`mark://w/s${i}.md`, `mark://w/t${i % 5000}.md`));
    store.seedFromExport([], edges);
    assert.equal(store.edgeCount, 100_000);
    assert.equal(store.backlinks('mark://w/t42.md').length, 20);
    store.merge(crawlOf([node('mark://w/s42.md')], []));
    assert.equal(store.backlinks('mark://w/t42.md').length, 19);
    assert.equal(store.edgeCount, 99_999);
  });
});

describe('graph store bounds (src/broker/graph/graph-bounds.ts)', () => {
  it('keeps typed relations first when a seeded document has more links than its share', () => {
    // /graph.md lists edges by (from, to, rel): here the relation sorts after 1000 body links.
    const store = new GraphStore({ now });
    const edges: GraphEdge[] = [];
    for (let i = 0; i < 1000; i++) edges.push(edge(A, `mark://team-a/t/${String(i).padStart(4, '0')}.md`));
    edges.push(edge(A, 'mark://team-a/z.md', { rel: 'supersedes' }));
    store.seedFromExport([node(A)], edges);
    assert.equal(store.edgesFrom(A).length, 1000);
    assert.ok(store.edgesFrom(A).some((e) => e.rel === 'supersedes'));
    assert.equal(store.node(A)?.linksCut, true);
  });

  it('keeps typed relations first when the world has room for only some links of a crawled document', () => {
    const store = new GraphStore({ now, bounds: { edgesPerWorld: 3 } });
    const body = [B, C, 'mark://team-a/d.md', 'mark://team-a/e.md'].map((to) => edge(A, to));
    store.merge(crawlOf([node(A)], [...body, edge(A, B, { rel: 'cites' })]));
    assert.deepEqual(
      store.edgesFrom(A).map((e) => [e.to, e.rel]),
      [
        [B, ''],
        [C, ''],
        [B, 'cites'],
      ],
    );
  });

  it("gives a world's room for links back when a document's links are forgotten or replaced", () => {
    const D = 'mark://team-a/d.md';
    const E = 'mark://team-a/e.md';
    const store = new GraphStore({ now, bounds: { edgesPerWorld: 2 } });
    const teamA = { kind: 'world' as const, world: 'team-a' };
    store.seedFromExport([node(A)], [edge(A, B), edge(A, C)], teamA);
    assert.deepEqual(store.merge(crawlOf([node(B)], [edge(B, D)])).notRecorded, [B], 'team-a has no room left');
    // team-a's next /graph.md no longer lists A: its two links go, and their room with them.
    store.seedFromExport([node(C)], [], teamA);
    assert.equal(store.node(A), undefined);
    store.merge(crawlOf([node(B)], [edge(B, D), edge(B, E)]));
    assert.deepEqual(
      store.edgesFrom(B).map((e) => e.to),
      [D, E],
    );
    // A re-crawl replaces B's links within the room its old links held.
    store.merge(crawlOf([node(B)], [edge(B, A), edge(B, C)]));
    assert.deepEqual(
      store.edgesFrom(B).map((e) => e.to),
      [A, C],
    );
    assert.equal(store.node(B)?.linksCut, undefined);
  });
});
