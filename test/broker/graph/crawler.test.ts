import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { crawl, type DocumentFetcher } from '../../../src/broker/graph/crawler.ts';
import { BrokerGraph } from '../../../src/broker/graph/graph-service.ts';
import { WorldDirectory } from '../../../src/broker/graph/world-urls.ts';
import type { WorldGateway } from '../../../src/broker/worlds/gateway.ts';
import { TestGateway } from './test-gateway.ts';

/** mark_graph's crawl (Go client/graph/crawl.go) over real world servers. */
describe('link graph crawl', () => {
  let gateway: TestGateway;
  const now = () => new Date('2026-03-01T00:00:00Z');

  before(async () => {
    gateway = await TestGateway.start([
      { name: 'team-a', address: 'team-a.team-a.svc.cluster.local:6309' },
      { name: 'team-b' },
    ]);
    const a = (path: string, body: string, meta: Record<string, string> = {}) =>
      gateway.publish('team-a', path, body, meta);
    await a(
      '/index.md',
      '# Team A hub\n\n## Services\n\n- [Applications](docs/a.md)\n- [B twice](docs/b.md) and [again](docs/b.md)\n- [Team B](mark://team-b/notes.md)\n- [External](https://example.com/x)\n- [Unknown world](mark://team-z/x.md)\n',
    );
    await a(
      '/docs/a.md',
      '# Applications\n\n## Links\n\n[B doc](b.md) [B doc](b.md#part) and back to [the hub](../index.md)\n',
    );
    await a('/docs/b.md', '# B doc\n\nNo body links.\n', {
      'rel-supersedes': 'a.md',
      'rel-cites': ' , has space, /docs/b.md, mark://team-b/notes.md',
    });
    for (let i = 1; i <= 7; i++) await a(`/chain/${i}.md`, `# Chain ${i}\n\n[next](${i + 1}.md)\n`);
    await a('/wide/index.md', `# Wide\n\n${Array.from({ length: 300 }, (_, i) => `- [n${i}](n${i}.md)\n`).join('')}`);
    await a('/binary.md', '# Not text\u0000\n\n[hidden](docs/a.md)\n');
    await a('/related.md', `# Related\n\n${Array.from({ length: 1200 }, (_, i) => `[r${i}](r/${i}.md)`).join(' ')}\n`, {
      'rel-supersedes': 'docs/a.md',
    });
    await a('/room/index.md', `# Room\n\n${[1, 2, 3, 4].map((i) => `[d${i}](d${i}.md)`).join(' ')}\n`);
    for (let i = 1; i <= 4; i++)
      await a(
        `/room/d${i}.md`,
        `# D${i}\n\n${Array.from({ length: 10 }, (_, j) => `[t${j}](t${i}-${j}.md)`).join(' ')}\n`,
      );
    const line = '- [Doc](docs/a.md) then [t](t/1.md) [u](t/2.md)\n';
    await a('/huge.md', `# Huge\n\n${line.repeat(Math.floor(1_000_000 / line.length))}`);
    await gateway.publish(
      'team-b',
      '/notes.md',
      '# Team B notes\n\nBack to [team A](mark://team-a/index.md) and [A by address](mark://team-a.team-a.svc.cluster.local:6309/docs/a.md)\n',
    );
  });
  after(() => gateway.close());

  it('records nodes and aggregated edges with label, anchor and count', async () => {
    const graph = new BrokerGraph({ gateway, now });
    const result = await graph.crawl('mark://team-a/index.md', gateway, 1);
    const statuses = Object.fromEntries([...result.graph.nodes.values()].map((n) => [n.url, n.status]));
    assert.deepEqual(statuses, {
      'mark://team-a/index.md': 'ok',
      'mark://team-a/docs/a.md': 'ok',
      'mark://team-a/docs/b.md': 'ok',
      'mark://team-b/notes.md': 'ok',
      'https://example.com/x': 'external',
      'mark://team-z/x.md': 'external',
    });
    const toB = [...result.graph.edges].find(
      (e) => e.from === 'mark://team-a/index.md' && e.to === 'mark://team-a/docs/b.md',
    );
    assert.deepEqual(toB, {
      from: 'mark://team-a/index.md',
      to: 'mark://team-a/docs/b.md',
      rel: '',
      label: 'B twice',
      anchor: 'services',
      count: 2,
    });
    assert.equal(result.graph.nodes.get('mark://team-a/index.md')?.linkCount, 6);
    assert.equal(result.graph.nodes.get('mark://team-a/index.md')?.title, 'Team A hub');
  });

  it('never fetches links outside the configured worlds', async () => {
    gateway.calls.length = 0;
    await new BrokerGraph({ gateway, now }).crawl('mark://team-a/index.md', gateway, 2);
    assert.ok(gateway.calls.every((c) => c.world === 'team-a' || c.world === 'team-b'));
    assert.ok(!gateway.calls.some((c) => c.path === '/x'));
  });

  it('adds typed edges from rel- metadata, skipping empty, spaced and self references', async () => {
    const result = await new BrokerGraph({ gateway, now }).crawl('mark://team-a/docs/b.md', gateway, 1);
    const typed = [...result.graph.edges]
      .filter((e) => e.from === 'mark://team-a/docs/b.md')
      .map((e) => [e.to, e.rel])
      .sort();
    assert.deepEqual(typed, [
      ['mark://team-a/docs/a.md', 'supersedes'],
      ['mark://team-b/notes.md', 'cites'],
    ]);
    assert.equal(result.graph.nodes.get('mark://team-a/docs/b.md')?.linkCount, 0, 'rel- edges are not body links');
  });

  it('visits each document once on cyclic links', async () => {
    gateway.calls.length = 0;
    const result = await new BrokerGraph({ gateway, now }).crawl('mark://team-a/docs/a.md', gateway, 5);
    const fetched = gateway.callsTo('FETCH').map((c) => `${c.world}${c.path}`);
    assert.equal(new Set(fetched).size, fetched.length);
    assert.ok(result.graph.nodes.has('mark://team-a/index.md'));
  });

  it('stops following at the depth limit but records the last hop', async () => {
    const result = await new BrokerGraph({ gateway, now }).crawl('mark://team-a/chain/1.md', gateway, 2);
    assert.deepEqual([...result.graph.nodes.keys()].sort(), [
      'mark://team-a/chain/1.md',
      'mark://team-a/chain/2.md',
      'mark://team-a/chain/3.md',
    ]);
    assert.ok(
      [...result.graph.edges].some((e) => e.from === 'mark://team-a/chain/3.md' && e.to === 'mark://team-a/chain/4.md'),
    );
  });

  it('clamps the depth to 1..5', async () => {
    const deep = await new BrokerGraph({ gateway, now }).crawl('mark://team-a/chain/1.md', gateway, 9);
    assert.equal(deep.graph.nodes.size, 6);
    const shallow = await new BrokerGraph({ gateway, now }).crawl('mark://team-a/chain/1.md', gateway, 0);
    assert.equal(shallow.graph.nodes.size, 2);
  });

  it('produces at most 200 nodes', async () => {
    const result = await new BrokerGraph({ gateway, now }).crawl('mark://team-a/wide/index.md', gateway, 1);
    assert.equal(result.graph.nodes.size, 200);
    assert.equal(result.graph.edgeCount, 300, 'edges beyond the node bound are still recorded');
  });

  it('keeps at most maxEdges links in one crawl, and marks the document whose links it cut', async () => {
    // The default is one world's share of the graph, 25,000 (src/broker/graph/crawler.ts); 250 cuts /wide/index.md's 300.
    const fetcher: DocumentFetcher = (world, path) => gateway.read(world, { verb: 'FETCH', path });
    const limits = { maxDepth: 1, maxNodes: 200, workers: 1, maxEdges: 250 };
    const { graph } = await crawl('mark://team-a/wide/index.md', fetcher, new WorldDirectory(gateway.list()), limits);
    assert.equal(graph.edgeCount, 250);
    assert.equal(graph.nodes.get('mark://team-a/wide/index.md')?.linksCut, true);
  });

  it('charges a link written twice in one document once against maxEdges', async () => {
    // /index.md has 6 link occurrences and 5 distinct links (docs/b.md twice): with room for 6,
    // the next document read (docs/a.md) still keeps one link.
    const fetcher: DocumentFetcher = (world, path) => gateway.read(world, { verb: 'FETCH', path });
    const limits = { maxDepth: 1, maxNodes: 200, workers: 1, maxEdges: 6 };
    const { graph } = await crawl('mark://team-a/index.md', fetcher, new WorldDirectory(gateway.list()), limits);
    assert.equal(graph.nodes.get('mark://team-a/index.md')?.linksCut, undefined);
    assert.equal(graph.edgeCount, 6);
    assert.equal([...graph.edges].filter((e) => e.from === 'mark://team-a/docs/a.md').length, 1);
  });

  it('keeps at most maxEdges links when several reads are in flight at once', async () => {
    // Each FETCH of /room/d*.md is answered only once all four are in flight, so four reads
    // resume together: each used to see the same room (maxEdges less the index's 4 links) and keep
    // it whole, 4 + 4 × 10 links where the bound is 19. Deterministic: no timing, only the barrier.
    const held = Promise.withResolvers<void>();
    let arrived = 0;
    const fetcher: DocumentFetcher = async (world, path) => {
      const response = await gateway.read(world, { verb: 'FETCH', path });
      if (path.startsWith('/room/d')) {
        if (++arrived === 4) held.resolve();
        await held.promise;
      }
      return response;
    };
    const limits = { maxDepth: 1, maxNodes: 200, workers: 5, maxEdges: 19 };
    const { graph } = await crawl('mark://team-a/room/index.md', fetcher, new WorldDirectory(gateway.list()), limits);
    assert.equal(arrived, 4, 'the four documents were read together');
    assert.equal(graph.edgeCount, 19);
    const cut = [1, 2, 3, 4].filter((i) => graph.nodes.get(`mark://team-a/room/d${i}.md`)?.linksCut === true);
    assert.equal(cut.length, 3, 'the first read keeps its 10 links, the second 5, the others none');
  });

  it('keeps at most `workers` fetches in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const counting: WorldGateway = {
      list: () => gateway.list(),
      get: (name) => gateway.get(name),
      canWrite: () => false,
      write: () => Promise.reject(new Error('read-only')),
      close: async () => {},
      read: async (world, call) => {
        peak = Math.max(peak, ++inFlight);
        try {
          return await gateway.read(world, call);
        } finally {
          inFlight--;
        }
      },
    };
    await new BrokerGraph({ gateway: counting, now, limits: { workers: 3 } }).crawl(
      'mark://team-a/wide/index.md',
      counting,
      1,
    );
    assert.ok(peak <= 3 && peak >= 1, `peak ${peak}`);
  });

  it('follows links written with a world dial address under the world name', async () => {
    const result = await new BrokerGraph({ gateway, now }).crawl('mark://team-b/notes.md', gateway, 1);
    assert.ok([...result.graph.edges].some((e) => e.to === 'mark://team-a/docs/a.md'));
    assert.equal(result.graph.nodes.get('mark://team-a/docs/a.md')?.status, 'ok');
  });

  it('marks missing documents with their status and unreachable worlds as error, saying why', async () => {
    gateway.unreachable.add('team-b');
    try {
      const result = await new BrokerGraph({ gateway, now }).crawl('mark://team-a/wide/index.md', gateway, 1);
      assert.equal(result.graph.nodes.get('mark://team-a/wide/n0.md')?.status, 'not-found');
      const graph = new BrokerGraph({ gateway, now });
      const fromB = await graph.crawl('mark://team-b/notes.md', gateway, 1);
      assert.deepEqual(
        [...fromB.graph.nodes.values()],
        [
          {
            url: 'mark://team-b/notes.md',
            title: '',
            status: 'error',
            linkCount: 0,
            failure: 'world "team-b" is unavailable',
          },
        ],
      );
      // The reason is this crawl's; the shared graph every caller reads does not keep it.
      assert.equal(graph.store.node('mark://team-b/notes.md')?.failure, undefined);
    } finally {
      gateway.unreachable.clear();
    }
  });

  it('keeps what it knew when a re-crawl cannot reach the world', async () => {
    const graph = new BrokerGraph({ gateway, now });
    await graph.crawl('mark://team-a/index.md', gateway, 1);
    gateway.unreachable.add('team-a');
    try {
      await graph.crawl('mark://team-a/index.md', gateway, 1);
    } finally {
      gateway.unreachable.clear();
    }
    assert.equal(graph.store.node('mark://team-a/index.md')?.title, 'Team A hub');
    assert.deepEqual(
      graph.backlinks('mark://team-a/docs/a.md').map((b) => b.url),
      ['mark://team-a/docs/b.md', 'mark://team-a/index.md', 'mark://team-b/notes.md'],
    );
  });

  it('treats a body with a NUL byte as binary, with no links', async () => {
    const result = await new BrokerGraph({ gateway, now }).crawl('mark://team-a/binary.md', gateway, 1);
    assert.deepEqual(
      [...result.graph.nodes.values()],
      [{ url: 'mark://team-a/binary.md', title: '', status: 'ok', linkCount: 0 }],
    );
  });

  it('scans a 1 MB document of tens of thousands of links up to the scan bound, and marks it cut', async () => {
    const result = await new BrokerGraph({ gateway, now }).crawl('mark://team-a/huge.md', gateway, 1);
    const huge = result.graph.nodes.get('mark://team-a/huge.md');
    // The scan stops after 10,000 link occurrences (src/broker/graph/graph-bounds.ts); its three targets are all kept.
    assert.equal(huge?.linkCount, 10_000);
    assert.equal(huge.linksCut, true);
    const counts = [...result.graph.edges]
      .filter((e) => e.from === 'mark://team-a/huge.md')
      .map((e) => e.count)
      .sort((a, b) => a - b);
    assert.deepEqual(counts, [3333, 3333, 3334]);
    assert.equal(result.graph.nodes.size, 4);
    assert.deepEqual(result.recorded.notRecorded, []);
  });

  it('keeps the typed relations of a document whose body links are cut, and body links up to the bound', async () => {
    const result = await new BrokerGraph({ gateway, now }).crawl('mark://team-a/related.md', gateway, 1);
    assert.equal(result.graph.nodes.get('mark://team-a/related.md')?.linksCut, true);
    const from = [...result.graph.edges].filter((e) => e.from === 'mark://team-a/related.md');
    // One document's share is 1000 distinct links (src/broker/graph/graph-bounds.ts): the relation and 999 body links.
    assert.equal(from.length, 1000);
    assert.deepEqual(
      from.filter((e) => e.rel !== '').map((e) => [e.rel, e.to]),
      [['supersedes', 'mark://team-a/docs/a.md']],
    );
    assert.ok(
      from.some((e) => e.to === 'mark://team-a/r/0.md') && !from.some((e) => e.to === 'mark://team-a/r/999.md'),
    );
  });

  it('answers with an aborted crawl when the caller gives up', async () => {
    const controller = new AbortController();
    controller.abort();
    const result = await new BrokerGraph({ gateway, now }).crawl(
      'mark://team-a/index.md',
      gateway,
      2,
      controller.signal,
    );
    assert.equal(result.graph.nodes.size, 0);
  });
});
