import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { buildExport } from '../../../src/broker/graph/graph-export.ts';
import { BrokerGraph } from '../../../src/broker/graph/graph-service.ts';
import { holdable, TestGateway } from './test-gateway.ts';

/**
 * Seeding from each world's /graph.md (Go broker `seedWorldGraph`) against real
 * world servers: the hub publishes the federation agent's golden, keyed by
 * team-a's in-cluster dial address.
 */
const golden = readFileSync(new URL('./testdata/graph-export-incluster.md', import.meta.url), 'utf8').replace(
  'GOLDEN',
  '2026-01-01T00:00:00Z',
);
const minute = 60_000;

/** The golden's rows about docs/b.md that the republishing tests take out, as the export writes them. */
const goldenRows = {
  bNode:
    '| [mark://team-a.team-a.svc.cluster.local/docs/b.md](mark://team-a.team-a.svc.cluster.local/docs/b.md) | B doc | ok | 0 |\n',
  bSupersedesA:
    '| mark://team-a.team-a.svc.cluster.local/docs/b.md | mark://team-a.team-a.svc.cluster.local/docs/a.md | supersedes |  |  | 1 |\n',
  aLinksB:
    '| mark://team-a.team-a.svc.cluster.local/docs/a.md | mark://team-a.team-a.svc.cluster.local/docs/b.md |  | B doc | links | 2 |\n',
};

/** The golden /graph.md without these rows. */
const goldenWithout = (...rows: string[]) => rows.reduce((text, row) => text.replace(row, ''), golden);

class Clock {
  ms = Date.parse('2026-03-01T12:00:00Z');
  now = () => new Date(this.ms);
  advance(ms: number) {
    this.ms += ms;
  }
}

describe('graph seeding from /graph.md', () => {
  let gateway: TestGateway;
  let clock: Clock;
  let graph: BrokerGraph;
  const warnings: string[] = [];

  before(async () => {
    gateway = await TestGateway.start([
      { name: 'root' },
      { name: 'team-a', address: 'team-a.team-a.svc.cluster.local:6309' },
      { name: 'team-b' },
    ]);
    await gateway.publish('root', '/graph.md', golden);
  });
  after(() => gateway.close());

  /** Lets the five-minute seeding interval pass and seeds again. */
  const seedAfterInterval = async () => {
    clock.advance(5 * minute);
    await graph.seed();
  };

  /** Runs `check` while the hub publishes `text` as its /graph.md, then puts the golden back for the next test. */
  const whileHubPublishes = async (text: string, check: () => Promise<void>) => {
    await gateway.publish('root', '/graph.md', text);
    try {
      await check();
    } finally {
      await gateway.publish('root', '/graph.md', golden);
    }
  };

  beforeEach(() => {
    gateway.calls.length = 0;
    gateway.unreachable.clear();
    warnings.length = 0;
    clock = new Clock();
    graph = new BrokerGraph({ gateway, now: clock.now, log: { warn: (_fields, message) => warnings.push(message) } });
  });

  it('answers backlinks from the seed on a cold graph without crawling', async () => {
    await graph.seed();
    assert.deepEqual(graph.backlinks('mark://team-a/docs/a.md'), [
      {
        url: 'mark://team-a/docs/b.md',
        title: 'B doc',
        status: 'ok',
        rel: 'supersedes',
        label: '',
        anchor: '',
        count: 1,
        provenance: 'seed',
        origin: { kind: 'hub', world: 'root' },
      },
      {
        url: 'mark://team-a/index.md',
        title: 'Team A hub',
        status: 'ok',
        rel: '',
        label: 'Applications',
        anchor: 'services',
        count: 1,
        provenance: 'seed',
        origin: { kind: 'hub', world: 'root' },
      },
    ]);
    assert.deepEqual(gateway.calls.map((c) => `${c.world} ${c.verb} ${c.path}`).sort(), [
      'root FETCH /graph.md',
      'team-a FETCH /graph.md',
      'team-b FETCH /graph.md',
    ]);
  });

  it('translates dial-address rows to world names, leaving no in-cluster rows behind', async () => {
    await graph.seed();
    const exported = (await graph.readableExport(gateway)).body;
    assert.ok(!exported.includes('.svc.cluster.local'), exported);
    assert.ok(exported.includes('| mark://team-a/docs/b.md | mark://team-a/docs/a.md | supersedes |  |  | 1 |'));
  });

  it("keeps the hub's rows of hosts that are not configured worlds", async () => {
    const other = golden.replaceAll('team-a.team-a.svc.cluster.local', 'elsewhere.example:7000');
    await whileHubPublishes(other, async () => {
      await graph.seed();
      assert.equal(graph.backlinks('mark://elsewhere.example:7000/docs/a.md').length, 2);
    });
  });

  it("keeps only a world's own documents from its /graph.md (src/broker/graph/graph-store.ts)", async () => {
    await gateway.publish(
      'team-b',
      '/graph.md',
      golden.replaceAll('team-a.team-a.svc.cluster.local', 'elsewhere.example:7000'),
    );
    try {
      await graph.seed();
      assert.equal(graph.backlinks('mark://elsewhere.example:7000/docs/a.md').length, 0);
    } finally {
      await gateway.archive('team-b', '/graph.md');
    }
  });

  it('checks each world at most once per five minutes, then again', async () => {
    await graph.seed();
    clock.advance(2 * minute);
    await graph.seed();
    clock.advance(2 * minute + 59_000);
    await graph.seed();
    assert.equal(gateway.callsTo('FETCH', '/graph.md').filter((c) => c.world === 'root').length, 1);
    clock.advance(1000);
    await graph.seed();
    assert.equal(gateway.callsTo('FETCH', '/graph.md').filter((c) => c.world === 'root').length, 2);
  });

  it('fetches conditionally on the stored etag and keeps the rows on not-modified', async () => {
    await graph.seed();
    await seedAfterInterval();
    const rootFetches = gateway.callsTo('FETCH', '/graph.md').filter((c) => c.world === 'root');
    assert.equal(rootFetches[0]?.metadata['if-none-match'], undefined, 'the first check has no etag');
    assert.match(rootFetches[1]?.metadata['if-none-match'] ?? '', /^[0-9a-f]{64}$/);
    assert.equal(graph.backlinks('mark://team-a/docs/a.md').length, 2);
  });

  it('throttles failed checks too, and still seeds from the worlds that answer', async () => {
    gateway.unreachable.add('root');
    await graph.seed();
    gateway.unreachable.delete('root');
    await graph.seed();
    assert.equal(gateway.callsTo('FETCH', '/graph.md').filter((c) => c.world === 'root').length, 1);
    assert.deepEqual(warnings, ['graph seed fetch failed']);
    assert.equal(graph.backlinks('mark://team-a/docs/a.md').length, 0);
    await seedAfterInterval();
    assert.equal(graph.backlinks('mark://team-a/docs/a.md').length, 2);
  });

  it('shares one check between concurrent callers', async () => {
    await Promise.all([graph.seed(), graph.seed(), graph.seed()]);
    assert.equal(gateway.callsTo('FETCH', '/graph.md').length, 3);
    assert.equal(graph.backlinks('mark://team-a/docs/a.md').length, 2);
    assert.ok(graph.backlinks('mark://team-a/docs/a.md').every((entry) => entry.provenance === 'seed'));
  });

  it('lets a caller give up waiting without cancelling the check other callers share', async () => {
    const controller = new AbortController();
    const impatient = graph.seed(controller.signal);
    controller.abort();
    await impatient;
    await graph.seed();
    assert.equal(graph.backlinks('mark://team-a/docs/a.md').length, 2);
    assert.equal(gateway.callsTo('FETCH', '/graph.md').filter((c) => c.world === 'root').length, 1);
  });

  it('picks up a republished /graph.md once the interval has passed', async () => {
    await graph.seed();
    const updated = goldenWithout(goldenRows.bSupersedesA);
    await whileHubPublishes(updated, async () => {
      await seedAfterInterval();
      assert.deepEqual(
        graph.backlinks('mark://team-a/docs/a.md').map((b) => b.rel),
        [''],
      );
    });
  });

  it('forgets a document the republished /graph.md no longer lists: its row, title and links', async () => {
    // The federation crawl drops a document that was deleted, archived or read-protected since the last run.
    await graph.seed();
    const without = goldenWithout(goldenRows.bNode, goldenRows.bSupersedesA);
    await whileHubPublishes(without, async () => {
      await seedAfterInterval();
      assert.deepEqual(
        graph.backlinks('mark://team-a/docs/a.md').map((b) => b.url),
        ['mark://team-a/index.md'],
      );
      assert.equal(graph.store.node('mark://team-a/docs/b.md'), undefined);
      const exported = (await graph.readableExport(gateway)).body;
      assert.doesNotMatch(exported, /^\| \[mark:\/\/team-a\/docs\/b\.md\]/m, 'no node row');
      assert.doesNotMatch(exported, /^\| mark:\/\/team-a\/docs\/b\.md \|/m, 'no edge from it');
    });
  });

  it('keeps what a republished /graph.md leaves out of a world its ## Partial section names', async () => {
    // The federation crawl cut team-a to its share of the export (src/broker/graph/federation/export-share.ts):
    // docs/b.md's row and links are left out, not gone.
    await graph.seed();
    const partial = goldenWithout(goldenRows.bNode, goldenRows.bSupersedesA, goldenRows.aLinksB).replace(
      '\n## Nodes\n',
      '\n## Partial\n\n- team-a: 1 documents and 2 links left out; at most 0 links per document\n\n## Nodes\n',
    );
    await whileHubPublishes(partial, async () => {
      await seedAfterInterval();
      assert.deepEqual(
        graph.backlinks('mark://team-a/docs/a.md').map((b) => b.url),
        ['mark://team-a/docs/b.md', 'mark://team-a/index.md'],
      );
      assert.equal(graph.store.node('mark://team-a/docs/b.md')?.title, 'B doc');
      assert.deepEqual(
        graph.backlinks('mark://team-a/docs/b.md').map((b) => b.url),
        ['mark://team-a/docs/a.md'],
        "a listed document's links left out are kept too",
      );
      // Once the world is whole again, what the export no longer lists is forgotten as before.
      await gateway.publish('root', '/graph.md', partial.replace(/\n## Partial\n\n[^\n]*\n/, ''));
      await seedAfterInterval();
      assert.equal(graph.store.node('mark://team-a/docs/b.md'), undefined);
    });
  });

  describe("a partial world's documents under its per-document bound", () => {
    // The links stage of the export's share (export-share.ts `worldWithin`) cuts only the documents
    // holding more links than one common number, which the ## Partial bullet states: a document listed
    // with fewer links was not cut, so its links are its whole set.
    const dial = (path: string) => `mark://team-a.team-a.svc.cluster.local${path}`;
    const hubExport = (targets: readonly string[]) =>
      buildExport(
        new Date('2026-01-01T00:00:00Z'),
        ['/docs/a.md', '/docs/x.md', '/docs/y.md', '/docs/z.md'].map((path) => ({
          url: dial(path),
          title: path,
          status: 'ok',
          linkCount: path === '/docs/a.md' ? targets.length : 0,
        })),
        targets.map((path) => ({ from: dial('/docs/a.md'), to: dial(path), rel: '', label: '', anchor: '', count: 1 })),
        [{ world: 'team-a', documentsLeftOut: 0, linksLeftOut: 40, linksPerDocument: 2 }],
      );
    const linksOfA = () =>
      graph.store
        .edgesFrom('mark://team-a/docs/a.md')
        .map((edge) => edge.to)
        .sort();

    const reseed = async (targets: readonly string[]) => {
      await gateway.publish('root', '/graph.md', hubExport(targets));
      await seedAfterInterval();
    };

    it('replaces the links of a document listed with fewer links than the bound: a link its writer removed goes', async () => {
      await whileHubPublishes(hubExport([]), async () => {
        await reseed(['/docs/x.md', '/docs/y.md']);
        assert.deepEqual(linksOfA(), ['mark://team-a/docs/x.md', 'mark://team-a/docs/y.md']);
        await reseed(['/docs/x.md']);
        assert.deepEqual(linksOfA(), ['mark://team-a/docs/x.md']);
      });
    });

    it('adds to the links of a document listed with as many links as the bound: it may have been cut', async () => {
      await whileHubPublishes(hubExport([]), async () => {
        await reseed(['/docs/x.md', '/docs/y.md']);
        await reseed(['/docs/x.md', '/docs/z.md']);
        assert.deepEqual(linksOfA(), ['mark://team-a/docs/x.md', 'mark://team-a/docs/y.md', 'mark://team-a/docs/z.md']);
      });
    });
  });

  it("re-checks before the interval when another replica announces it wrote a world's /graph.md", async () => {
    // Two replicas' graphs; `announce` stands for the Redis channel (test/broker/state/redis-channel.test.ts).
    const other = new BrokerGraph({ gateway, now: clock.now, announce: (world) => graph.heardPublished(world) });
    await graph.seed();
    assert.equal(graph.backlinks('mark://team-a/docs/a.md').length, 2);
    const updated = goldenWithout(goldenRows.bSupersedesA);
    await whileHubPublishes(updated, async () => {
      other.published('root', '/docs/other.md');
      await graph.seed();
      assert.equal(graph.backlinks('mark://team-a/docs/a.md').length, 2, 'only /graph.md is announced');
      other.published('root', '/graph.md');
      await graph.seed();
      assert.deepEqual(
        graph.backlinks('mark://team-a/docs/a.md').map((b) => b.rel),
        [''],
      );
      const rootFetches = gateway.callsTo('FETCH', '/graph.md').filter((c) => c.world === 'root');
      assert.equal(rootFetches.length, 2, 'one check at start, one after the announcement');
      assert.match(rootFetches[1]?.metadata['if-none-match'] ?? '', /^[0-9a-f]{64}$/, 'still conditional');
    });
  });

  it('lets a local crawl take precedence over the seed', async () => {
    await gateway.publish('team-a', '/docs/b.md', '# B crawled\n\nNo links any more.\n');
    await gateway.publish('team-a', '/index.md', '# Team A hub\n\n## Services\n\n- [Applications](docs/a.md)\n');
    await graph.seed();
    await graph.crawl('mark://team-a/docs/b.md', gateway, 1);
    // A newer export (different etag) still lists b.md's supersedes edge.
    await whileHubPublishes(golden.replace('2026-01-01T00:00:00Z', '2026-01-02T00:00:00Z'), async () => {
      await seedAfterInterval();
      assert.equal(gateway.callsTo('FETCH', '/graph.md').filter((c) => c.world === 'root').length, 2);
      assert.equal(graph.store.node('mark://team-a/docs/b.md')?.title, 'B crawled');
      assert.deepEqual(
        graph.backlinks('mark://team-a/docs/a.md').map((b) => b.url),
        ['mark://team-a/index.md'],
      );
    });
  });
});

describe('a world withdraws its /graph.md rows', () => {
  let gateway: TestGateway;
  const clock = new Clock();
  const ownExport = buildExport(
    new Date('2026-01-01T00:00:00Z'),
    [{ url: 'mark://team-c/x.md', title: 'X', status: 'ok', linkCount: 1 }],
    [{ from: 'mark://team-c/x.md', to: 'mark://team-c/y.md', rel: '', label: 'y', anchor: '', count: 1 }],
  );
  const linkers = (graph: BrokerGraph) => graph.backlinks('mark://team-c/y.md').map((b) => b.url);

  before(async () => {
    gateway = await TestGateway.start([{ name: 'root' }, { name: 'team-c' }]);
  });
  after(() => gateway.close());

  it('by publishing an export that lists nothing', async () => {
    await gateway.publish('team-c', '/graph.md', ownExport);
    const graph = new BrokerGraph({ gateway, now: clock.now });
    await graph.seed();
    assert.deepEqual(linkers(graph), ['mark://team-c/x.md']);
    await gateway.publish('team-c', '/graph.md', buildExport(new Date('2026-01-02T00:00:00Z'), [], []), {
      'expected-version': '1',
    });
    clock.advance(5 * minute);
    await graph.seed();
    assert.deepEqual(linkers(graph), []);
    assert.equal(graph.store.node('mark://team-c/x.md'), undefined);
    assert.equal(graph.store.seedEtag('team-c'), '');
  });

  it('by archiving it', async () => {
    await gateway.publish('team-c', '/graph.md', ownExport, { 'expected-version': '2' });
    const graph = new BrokerGraph({ gateway, now: clock.now });
    await graph.seed();
    assert.deepEqual(linkers(graph), ['mark://team-c/x.md']);
    assert.notEqual(graph.store.seedEtag('team-c'), '');
    await gateway.archive('team-c', '/graph.md');
    clock.advance(5 * minute);
    await graph.seed();
    assert.deepEqual(linkers(graph), []);
    assert.equal(graph.store.node('mark://team-c/x.md'), undefined);
    assert.equal(graph.store.seedEtag('team-c'), '', 'a /graph.md published again is read whole');
  });
});

describe('a backlinks answer waits only for the seeds that can change it', () => {
  let gateway: TestGateway;
  before(async () => {
    gateway = await TestGateway.start([{ name: 'root' }, { name: 'team-a' }, { name: 'slow' }]);
    await gateway.publish(
      'root',
      '/graph.md',
      buildExport(
        new Date('2026-01-01T00:00:00Z'),
        [{ url: 'mark://team-a/x.md', title: 'X', status: 'ok', linkCount: 1 }],
        [{ from: 'mark://team-a/x.md', to: 'mark://team-a/y.md', rel: '', label: 'y', anchor: '', count: 1 }],
      ),
    );
    await gateway.publish(
      'slow',
      '/graph.md',
      buildExport(
        new Date('2026-01-01T00:00:00Z'),
        [{ url: 'mark://slow/s.md', title: 'S', status: 'ok', linkCount: 1 }],
        [{ from: 'mark://slow/s.md', to: 'mark://slow/t.md', rel: '', label: 't', anchor: '', count: 1 }],
      ),
    );
  });
  after(() => gateway.close());

  it("answers from the hub's and the target world's seeds while another world's check is held, which still lands", async () => {
    const world = holdable(gateway, 'slow');
    const graph = new BrokerGraph({ gateway: world.view, now: new Clock().now });
    world.hold();
    let guard: NodeJS.Timeout | undefined;
    try {
      // The guard only turns a wait on the held world (the unfixed seedAll) into a failed assertion.
      const outcome = await Promise.race([
        graph.seed(undefined, 'mark://team-a/y.md').then(() => 'seeded'),
        new Promise<string>((resolve) => {
          guard = setTimeout(() => resolve('waited for the held world'), 20_000);
        }),
      ]);
      assert.equal(outcome, 'seeded');
      assert.deepEqual(
        graph.backlinks('mark://team-a/y.md').map((b) => b.url),
        ['mark://team-a/x.md'],
      );
      assert.deepEqual(graph.backlinks('mark://slow/t.md'), [], 'the held check has not answered');
    } finally {
      clearTimeout(guard);
      world.release();
    }
    // A caller that names the slow world waits for its check, still in flight from the background.
    await graph.seed(undefined, 'mark://slow/t.md');
    assert.deepEqual(
      graph.backlinks('mark://slow/t.md').map((b) => b.url),
      ['mark://slow/s.md'],
    );
  });
});
