import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { graphWithinShares, type SharedExport } from '../../../src/broker/graph/federation/export-share.ts';
import { oversizedGraphDetail } from '../../../src/broker/graph/federation/oversized-graph.ts';
import type { DocumentRecord } from '../../../src/broker/graph/federation/crawl-record.ts';
import type { WorldCrawl } from '../../../src/broker/graph/federation/world-crawl.ts';
import { buildExport, parseExport } from '../../../src/broker/graph/graph-export.ts';
import type { GraphEdge } from '../../../src/broker/graph/model.ts';
import { worldRowBytes } from '../../support/export-rows.ts';

// Mark's body limit (src/protocol/limits.ts), written out so the test states it.
const maxBodyBytes = 1_048_576;
const crawledAt = new Date('2026-03-01T00:00:00Z');

/** A world's crawl as the federation crawl hands it to the export: `links` maps each path to its link count. */
function worldCrawl(name: string, links: Record<string, number>, typed: Record<string, number> = {}): WorldCrawl {
  const records = new Map<string, DocumentRecord>();
  for (const [path, count] of Object.entries(links)) {
    const from = `mark://${name}${path}`;
    const edge = (i: number, rel: string): GraphEdge => ({
      from,
      to: `mark://${name}/targets-of-a-rather-long-path${path}/${rel}${i}.md`,
      rel,
      label: '',
      anchor: '',
      count: 1,
    });
    const body = Array.from({ length: count }, (_, i) => edge(i, ''));
    const relations = Array.from({ length: typed[path] ?? 0 }, (_, i) => edge(i, 'cites'));
    records.set(path, {
      etag: `"${path}"`,
      contentHash: '',
      title: path,
      linkCount: count,
      edges: [...body, ...relations],
    });
  }
  return {
    world: { name, address: `${name}:6309`, source: 'config' },
    records,
    listed: records.size,
    fetched: records.size,
    skipped: 0,
    skippedByCatalog: 0,
    failed: 0,
    linksCut: 0,
    complete: true,
    problems: [],
    changedAfter: null,
  };
}

/** Bytes of every row of a world, as a /graph.md without any share would publish them. */
function wholeRowBytes(crawl: WorldCrawl): number {
  const records = [...crawl.records];
  const nodes = records.map(([path, r]) => ({
    url: `mark://${crawl.world.name}${path}`,
    title: r.title,
    status: 'ok' as const,
    linkCount: r.linkCount,
  }));
  return worldRowBytes(
    buildExport(
      crawledAt,
      nodes,
      records.flatMap(([, r]) => r.edges),
    ),
    crawl.world.name,
  );
}

/**
 * What the share means: every world cut keeps rows of at most `share` bytes
 * and held more, and every world whose rows fit the share is whole.
 */
function assertHeldToShare(shared: SharedExport, crawls: readonly WorldCrawl[]): void {
  const share = shared.share;
  assert.ok(share !== null, 'some world was cut');
  for (const crawl of crawls) {
    const world = crawl.world.name;
    const published = worldRowBytes(shared.body, world);
    const whole = wholeRowBytes(crawl);
    if (shared.cut.has(world)) {
      assert.ok(published <= share, `${world} publishes ${published} bytes of rows, within its share of ${share}`);
      assert.ok(whole > share, `${world}, cut, held ${whole} bytes of rows, more than its share of ${share}`);
    } else {
      assert.ok(whole <= share, `${world}, whole, holds ${whole} bytes of rows, within the share of ${share}`);
      assert.equal(published, whole, `${world} publishes all its rows`);
    }
  }
}

const floods = (count: number, links: number) =>
  Object.fromEntries(Array.from({ length: count }, (_, n) => [`/flood-${n}.md`, links]));

/** The federation's /graph.md held to each world's share (src/broker/graph/federation/export-share.ts). */
describe('federation export share', () => {
  it('leaves a graph that fits whole', () => {
    const shared = graphWithinShares(
      [worldCrawl('team-a', { '/a.md': 10 }), worldCrawl('team-b', { '/b.md': 5 })],
      crawledAt,
    );
    assert.equal(shared.share, null);
    assert.equal(shared.cut.size, 0);
    assert.equal(parseExport(shared.body).edges.length, 15);
  });

  it('cuts only the world over its share, its heaviest documents first, keeping typed relations', () => {
    const flooding = worldCrawl('team-a', { ...floods(12, 1000), '/small.md': 3 }, { '/flood-0.md': 2 });
    const other = worldCrawl('team-b', { '/notes.md': 400, '/more.md': 200 });
    const shared = graphWithinShares([flooding, other], crawledAt);
    assertHeldToShare(shared, [flooding, other]);
    assert.ok(Buffer.byteLength(shared.body) <= maxBodyBytes);
    const edges = parseExport(shared.body).edges;
    const from = (url: string) => edges.filter((e) => e.from === url);
    assert.equal(from('mark://team-b/notes.md').length, 400);
    assert.equal(from('mark://team-b/more.md').length, 200);
    assert.equal(from('mark://team-a/small.md').length, 3);
    const kept = edges.filter((e) => e.from.startsWith('mark://team-a/')).length;
    assert.ok(kept > 0 && kept < 12_005, `team-a kept ${kept} links`);
    const perFlood = new Set(Array.from({ length: 12 }, (_, n) => from(`mark://team-a/flood-${n}.md`).length));
    assert.equal(perFlood.size, 1, 'every flood document keeps the same number of links');
    assert.equal(from('mark://team-a/flood-0.md').filter((e) => e.rel === 'cites').length, 2);
    assert.deepEqual([...shared.cut.keys()], ['team-a']);
    assert.equal(shared.cut.get('team-a')?.linksLeftOut, 12_005 - kept);
    assert.equal(shared.cut.get('team-a')?.documents.has('/small.md'), false);
    assert.equal(shared.cut.get('team-a')?.documents.size, 12);
    // The bullet states the number every flood document kept: /small.md, listed with fewer, is whole.
    assert.deepEqual([...parseExport(shared.body).partial], [['team-a', [...perFlood][0]]]);
    assert.equal(shared.cut.get('team-a')?.linksPerDocument, [...perFlood][0]);
  });

  it('gives two flooding worlds the same share', () => {
    const crawls = [
      worldCrawl('team-a', floods(9, 1000)),
      worldCrawl('team-c', floods(9, 1000)),
      worldCrawl('team-b', { '/b.md': 7 }),
    ];
    const shared = graphWithinShares(crawls, crawledAt);
    assertHeldToShare(shared, crawls);
    const edges = parseExport(shared.body).edges;
    const of = (world: string) => edges.filter((e) => e.from.startsWith(`mark://${world}/`)).length;
    assert.equal(of('team-b'), 7);
    assert.ok(of('team-a') < 9000 && of('team-a') === of('team-c'), `${of('team-a')} and ${of('team-c')}`);
    assert.deepEqual([...shared.cut.keys()].sort(), ['team-a', 'team-c']);
  });

  it('publishes a federation whose rows alone pass 1 MiB within it, every world in it, and marks the cut world partial', () => {
    const many = Object.fromEntries(
      Array.from({ length: 10_000 }, (_, n) => [`/a-rather-long-directory-name/and-another/document-${n}.md`, 1]),
    );
    const crawls = [
      worldCrawl('team-a', many),
      worldCrawl('team-b', { '/b.md': 2, '/c.md': 0 }),
      worldCrawl('team-c', { '/c.md': 1 }),
    ];
    const shared = graphWithinShares(crawls, crawledAt);
    assert.ok(Buffer.byteLength(shared.body) <= maxBodyBytes);
    assertHeldToShare(shared, crawls);
    const graph = parseExport(shared.body);
    const urls = new Set(graph.nodes.map((n) => n.url));
    for (const url of ['mark://team-b/b.md', 'mark://team-b/c.md', 'mark://team-c/c.md']) assert.ok(urls.has(url), url);
    assert.equal(graph.edges.filter((e) => e.from === 'mark://team-b/b.md').length, 2);
    assert.equal(graph.edges.filter((e) => e.from === 'mark://team-c/c.md').length, 1);
    const teamA = graph.nodes.filter((n) => n.url.startsWith('mark://team-a/')).length;
    assert.ok(teamA > 0 && teamA < 10_000, `team-a kept ${teamA} rows`);
    // Rows come first: a world whose rows pass its share keeps no links at all.
    assert.equal(graph.edges.filter((e) => e.from.startsWith('mark://team-a/')).length, 0);
    assert.deepEqual([...shared.cut.keys()], ['team-a']);
    const cut = shared.cut.get('team-a');
    assert.equal(cut?.documentsLeftOut, 10_000 - teamA);
    assert.equal(cut?.linksLeftOut, 10_000);
    // Every team-a document lost its row or its link, so each is read again next run.
    assert.equal(cut?.documents.size, 10_000);
    // Its rows were cut, so every document lost its links: the bullet's bound is 0.
    assert.deepEqual([...parseExport(shared.body).partial], [['team-a', 0]]);
    assert.match(
      shared.body,
      new RegExp(`^- team-a: ${10_000 - teamA} documents and 10000 links left out; at most 0 links per document$`, 'm'),
    );
  });

  it('keeps the shortest rows of a world cut by rows', () => {
    const rows = { '/short.md': 0, [`/${'long-'.repeat(40)}.md`]: 0 };
    const many = Object.fromEntries(
      Array.from({ length: 12_000 }, (_, n) => [`/padding/of/some/length/doc-${n}.md`, 0]),
    );
    const crawls = [worldCrawl('team-a', { ...many, ...rows }), worldCrawl('team-b', {})];
    const shared = graphWithinShares(crawls, crawledAt);
    assertHeldToShare(shared, crawls);
    const urls = new Set(parseExport(shared.body).nodes.map((n) => n.url));
    assert.ok(urls.has('mark://team-a/short.md'));
    assert.ok(!urls.has(`mark://team-a/${'long-'.repeat(40)}.md`));
    // Documents without links kept whole keep their etag: only those left out are read again.
    assert.equal(shared.cut.get('team-a')?.documents.size, shared.cut.get('team-a')?.documentsLeftOut);
  });

  it('writes no partial section when every world fits whole', () => {
    const shared = graphWithinShares([worldCrawl('team-a', { '/a.md': 1 })], crawledAt);
    assert.doesNotMatch(shared.body, /## Partial/);
    assert.equal(parseExport(shared.body).partial.size, 0);
  });

  it('a refusal names the world with the most documents and says the hub keeps its previous graph', () => {
    const crawls = [worldCrawl('team-a', { '/a.md': 1, '/b.md': 1 }), worldCrawl('team-b', { '/b.md': 1 })];
    const detail = oversizedGraphDetail(2_000_000, crawls);
    assert.match(detail, /even with every world's rows and links left out/);
    assert.match(detail, /Most documents are in team-a \(2 of 3\)/);
    assert.match(detail, /hub keeps its previous \/graph\.md/);
  });
});
