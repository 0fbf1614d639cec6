import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  runFederationCrawl,
  FederationCrawlError,
  type FederationCrawlSummary,
} from '../../../src/broker/graph/federation/federation-crawl.ts';
import { publishOutput } from '../../../src/broker/graph/federation/hub-publish.ts';
import { parseExport } from '../../../src/broker/graph/graph-export.ts';
import { parseContentIndex } from '../../../src/protocol/render/content-index.ts';
import { BrokerGraph } from '../../../src/broker/graph/graph-service.ts';
import type { WorldGateway } from '../../../src/broker/worlds/gateway.ts';
import { readerIdentity, TestGateway, writerIdentity } from './test-gateway.ts';

const now = () => new Date('2026-03-01T00:00:00Z');
const text = (body: Uint8Array) => Buffer.from(body).toString('utf8');

describe('federation crawl', () => {
  let gateway: TestGateway;
  let first: FederationCrawlSummary;
  const crawl = (extra: Partial<Parameters<typeof runFederationCrawl>[0]> = {}) =>
    runFederationCrawl({ gateway, hub: 'root', now, identity: writerIdentity, ...extra });
  const hubBody = async (path: string) => text((await gateway.read('root', { verb: 'FETCH', path })).body);
  const outcome = (summary: FederationCrawlSummary, path: string) =>
    summary.published.find((p) => p.path === path)?.outcome;
  const indexA = () => `/index/${gateway.get('team-a')!.address}.md`;

  before(async () => {
    gateway = await TestGateway.start([{ name: 'root' }, { name: 'team-a' }, { name: 'team-b' }]);
    gateway.writers.add(writerIdentity.email);
    await gateway.publish('root', '/index.md', '# Hub\n\n[Team B notes](mark://team-b/notes.md)\n');
    await gateway.publish('team-a', '/index.md', '# Team A hub\n\n## Services\n\n- [Applications](docs/a.md)\n');
    await gateway.publish(
      'team-a',
      '/docs/a.md',
      '# Applications\n\n## Links\n\n[B doc](b.md) and [B doc](b.md) and [elsewhere](https://example.com/)\n',
    );
    await gateway.publish('team-a', '/docs/b.md', '# B doc\n', { 'rel-supersedes': 'a.md' });
    await gateway.publish('team-a', '/docs/sub/deep.md', '# Deep\n\n[up](../a.md)\n');
    await gateway.publish('team-b', '/notes.md', '# Team B notes\n\nSee [A](mark://team-a/docs/a.md).\n');
    first = await crawl();
  });
  after(() => gateway.close());

  it('reads every document of every world on the first run', () => {
    assert.equal(first.previousFrom, 'hub');
    assert.equal(first.documentsFetched, 6);
    assert.equal(first.documentsSkipped, 0);
    assert.deepEqual(
      first.worlds.map((w) => [w.world, w.documents, w.complete]),
      [
        ['root', 1, true],
        ['team-a', 4, true],
        ['team-b', 1, true],
      ],
    );
    assert.ok(
      first.published.every((p) => p.outcome === 'published'),
      JSON.stringify(first.published),
    );
  });

  it('publishes /graph.md with world-name URLs, provenance and typed edges, and without its own outputs', async () => {
    const graph = parseExport(await hubBody('/graph.md'));
    assert.deepEqual(
      graph.nodes.map((n) => n.url),
      [
        'mark://root/index.md',
        'mark://team-a/docs/a.md',
        'mark://team-a/docs/b.md',
        'mark://team-a/docs/sub/deep.md',
        'mark://team-a/index.md',
        'mark://team-b/notes.md',
      ],
    );
    const edges = graph.edges.map((e) => `${e.from} ${e.to} ${e.rel} ${e.label} ${e.anchor} ${e.count}`);
    assert.ok(edges.includes('mark://team-a/docs/a.md mark://team-a/docs/b.md  B doc links 2'), edges.join('\n'));
    assert.ok(edges.includes('mark://team-a/docs/b.md mark://team-a/docs/a.md supersedes   1'));
    assert.ok(!edges.some((e) => e.includes('https://')), 'links outside mark:// are left out');
    assert.equal(graph.nodes.find((n) => n.url === 'mark://team-a/docs/a.md')?.linkCount, 3);
  });

  it('publishes each world a content index at /index/<host:port>.md whose hashes resolve', async () => {
    const entries = parseContentIndex(await hubBody(indexA()));
    assert.deepEqual(
      entries.map((e) => [e.server, e.path]),
      [
        ['mark://team-a', '/docs/a.md'],
        ['mark://team-a', '/docs/b.md'],
        ['mark://team-a', '/docs/sub/deep.md'],
        ['mark://team-a', '/index.md'],
      ],
    );
    const byHash = await gateway.read('team-a', { verb: 'FETCH', path: `/${entries[0]!.hash}` });
    assert.equal(byHash.metadata['content-hash'], entries[0]!.hash);
    assert.match(
      await hubBody(indexA()),
      /^# Content Index\n\n> Source: mark:\/\/team-a\n> Indexed: 2026-03-01T00:00:00Z\n> Documents: 4\n\n\| Hash \| Server \| Path \|\n/,
    );
  });

  it('publishes its outputs with the retention bound', async () => {
    const response = await gateway.read('root', { verb: 'FETCH', path: '/graph.md' });
    assert.equal(response.metadata.retention, '20');
  });

  it('lets a cold broker answer backlinks from the published graph before any crawl', async () => {
    const graph = new BrokerGraph({ gateway, now });
    await graph.seed();
    assert.deepEqual(
      graph.backlinks('mark://team-a/docs/a.md').map((b) => `${b.url} ${b.rel}`),
      [
        'mark://team-a/docs/b.md supersedes',
        'mark://team-a/docs/sub/deep.md ',
        'mark://team-a/index.md ',
        'mark://team-b/notes.md ',
      ],
    );
  });

  it('skips unchanged documents and republishes nothing on an unchanged federation', async () => {
    gateway.calls.length = 0;
    const again = await crawl();
    assert.equal(again.documentsFetched, 0);
    assert.equal(again.documentsSkipped, 6);
    assert.ok(
      again.published.every((p) => p.outcome === 'unchanged'),
      JSON.stringify(again.published),
    );
    assert.equal(gateway.callsTo('PUBLISH').length, 0);
    const conditional = gateway.callsTo('FETCH').filter((c) => c.world !== 'root' || c.path === '/index.md');
    assert.ok(
      conditional.every((c) => /^[0-9a-f]{64}$/.test(c.metadata['if-none-match'] ?? '')),
      JSON.stringify(conditional),
    );
  });

  it('reads again only what changed, and republishes only the outputs it changes', async () => {
    await gateway.publish('team-b', '/notes.md', '# Team B notes\n\nNow see [B](mark://team-a/docs/b.md).\n');
    const changed = await crawl();
    assert.equal(changed.documentsFetched, 1);
    assert.equal(changed.documentsSkipped, 5);
    assert.equal(outcome(changed, '/graph.md'), 'published');
    assert.equal(outcome(changed, `/index/${gateway.get('team-b')!.address}.md`), 'published');
    assert.equal(outcome(changed, indexA()), 'unchanged');
    const graph = parseExport(await hubBody('/graph.md'));
    assert.ok(graph.edges.some((e) => e.from === 'mark://team-b/notes.md' && e.to === 'mark://team-a/docs/b.md'));
    assert.ok(!graph.edges.some((e) => e.from === 'mark://team-b/notes.md' && e.to === 'mark://team-a/docs/a.md'));
  });

  it('continues from a previous state handed over in memory', async () => {
    const base = await crawl();
    gateway.calls.length = 0;
    const next = await crawl({ previous: base.state });
    assert.equal(next.previousFrom, 'argument');
    assert.equal(next.documentsSkipped, 6);
    assert.equal(gateway.callsTo('FETCH', '/graph.md').length, 0, 'the hub is not read back');
  });

  it('drops a document archived since the last run', async () => {
    await gateway.publish('team-a', '/docs/gone.md', '# Gone soon\n\n[A](a.md)\n');
    await crawl();
    await gateway.archive('team-a', '/docs/gone.md');
    const after = await crawl();
    assert.ok(!parseExport(await hubBody('/graph.md')).nodes.some((n) => n.url === 'mark://team-a/docs/gone.md'));
    assert.equal(after.worlds.find((w) => w.world === 'team-a')?.documents, 4);
  });

  it('keeps an unreachable world rows and withholds its index', async () => {
    const before = parseContentIndex(await hubBody(indexA()));
    gateway.unreachable.add('team-a');
    let down: FederationCrawlSummary;
    try {
      down = await crawl();
    } finally {
      gateway.unreachable.clear();
    }
    const teamA = down.worlds.find((w) => w.world === 'team-a')!;
    assert.equal(teamA.complete, false);
    assert.equal(teamA.documents, 4);
    assert.equal(outcome(down, indexA()), 'withheld');
    assert.deepEqual(parseContentIndex(await hubBody(indexA())), before);
    assert.ok(parseExport(await hubBody('/graph.md')).nodes.some((n) => n.url === 'mark://team-a/docs/a.md'));
  });

  it('withholds the index of a world truncated by the document bound', async () => {
    const bounded = await crawl({ limits: { maxDocumentsPerWorld: 2 } });
    const teamA = bounded.worlds.find((w) => w.world === 'team-a')!;
    assert.equal(teamA.complete, false);
    assert.match(teamA.problems.join('\n'), /document bound of 2 reached/);
    assert.equal(outcome(bounded, indexA()), 'withheld');
  });

  it('reports failed publications without throwing when the identity may not write to the hub', async () => {
    await gateway.publish('team-b', '/notes.md', '# Team B notes, again\n');
    const denied = await crawl({ identity: readerIdentity });
    assert.equal(outcome(denied, '/graph.md'), 'failed');
    assert.equal(outcome(denied, '/.demarkus/crawl-state/team-b.md'), 'withheld');
  });

  it('refuses a hub that is not a configured world', async () => {
    await assert.rejects(
      runFederationCrawl({ gateway, hub: 'nowhere', now }),
      (error: unknown) =>
        error instanceof FederationCrawlError &&
        error.code === 'ERR_HUB_NOT_CONFIGURED' &&
        error.message ===
          'hub world "nowhere" is not configured (known worlds: root, team-a, team-b): the crawl publishes only to worlds in the config\'s worlds (discovered worlds are read-only); add a world named "nowhere" to worlds, or set the config\'s hub (chart value crawl.hub) to a configured world',
    );
  });

  it('says the broker has no worlds when none are configured (a discovery-only install), rather than an empty list', async () => {
    const none = await TestGateway.start([]);
    try {
      await assert.rejects(
        runFederationCrawl({ gateway: none, hub: 'root', now }),
        (error: unknown) =>
          error instanceof FederationCrawlError &&
          error.message ===
            'hub world "root" is not configured (this broker has no worlds): the crawl publishes only to worlds in the config\'s worlds (discovered worlds are read-only); add a world named "root" to worlds, or set the config\'s hub (chart value crawl.hub) to a configured world',
      );
    } finally {
      await none.close();
    }
  });
});

describe('hub output publishing', () => {
  const refusing: WorldGateway = {
    list: () => [],
    get: () => undefined,
    canWrite: () => true,
    read: () => Promise.reject(new Error('unused')),
    write: () => Promise.reject(new Error('must not be sent')),
    close: async () => {},
  };
  const writer = (outputs = new Map<string, string>()) => ({
    gateway: refusing,
    hub: 'root',
    identity: writerIdentity,
    retention: 20,
    outputs,
  });

  it('reports a body over the 1 MiB limit as too large without sending it', async () => {
    const result = await publishOutput(writer(), '/graph.md', 'x'.repeat(1_048_577));
    assert.equal(result.outcome, 'too-large');
  });

  it('does not rewrite an output whose content differs only in its timestamp', async () => {
    const w = writer();
    const { outputFingerprint } = await import('../../../src/broker/graph/federation/crawl-record.ts');
    w.outputs.set('/graph.md', outputFingerprint('# Document Graph\n\n> Exported: 2026-01-01T00:00:00Z\n> Nodes: 0\n'));
    assert.equal(
      (await publishOutput(w, '/graph.md', '# Document Graph\n\n> Exported: 2026-02-02T00:00:00Z\n> Nodes: 0\n'))
        .outcome,
      'unchanged',
    );
    assert.equal(
      (await publishOutput(w, '/graph.md', '# Document Graph\n\n> Exported: 2026-02-02T00:00:00Z\n> Nodes: 1\n'))
        .outcome,
      'failed',
    );
  });
});

describe('federation crawl change detection through the catalog', () => {
  let gateway: TestGateway;
  let worldClock = Date.parse('2026-01-01T10:00:00Z');
  const crawl = (previous?: FederationCrawlSummary['state']) =>
    runFederationCrawl({ gateway, hub: 'root', now, identity: writerIdentity, ...(previous ? { previous } : {}) });
  const teamC = (s: FederationCrawlSummary) => s.worlds.find((w) => w.world === 'team-c')!;
  const fetchesOf = (world: string) =>
    gateway
      .callsTo('FETCH')
      .filter((c) => c.world === world)
      .map((c) => c.path);

  before(async () => {
    gateway = await TestGateway.start([{ name: 'root' }, { name: 'team-c', now: () => new Date(worldClock) }]);
    gateway.writers.add(writerIdentity.email);
    for (const [path, minute] of [
      ['/old-1.md', 0],
      ['/old-2.md', 10],
      ['/old-3.md', 20],
      ['/newest.md', 60],
    ] as const) {
      worldClock = Date.parse('2026-01-01T10:00:00Z') + minute * 60_000;
      await gateway.publish('team-c', path, `# ${path}\n\n[next](old-1.md)\n`);
    }
  });
  after(() => gateway.close());

  it('asks only the documents the catalog reports as modified since the last complete crawl', async () => {
    const first = await crawl();
    assert.equal(teamC(first).fetched, 4);
    gateway.calls.length = 0;
    const second = await crawl();
    assert.equal(teamC(second).skippedByCatalog, 3, JSON.stringify(teamC(second)));
    assert.deepEqual(fetchesOf('team-c'), ['/newest.md'], 'only the document inside the safety margin is asked');
    assert.equal(gateway.callsTo('LOOKUP').filter((c) => c.world === 'team-c').length, 1);
    assert.match(gateway.callsTo('LOOKUP')[0]?.metadata.filter ?? '', /^modified-after=2026-01-01T10:5\d:\d\dZ$/);
  });

  it('reads a document changed since, and keeps the others without a request', async () => {
    worldClock = Date.parse('2026-01-01T12:00:00Z');
    await gateway.publish('team-c', '/old-2.md', '# changed\n\n[elsewhere](old-3.md)\n');
    gateway.calls.length = 0;
    const third = await crawl();
    assert.equal(teamC(third).fetched, 1);
    assert.deepEqual(fetchesOf('team-c').sort(), ['/newest.md', '/old-2.md']);
    const graph = parseExport(text((await gateway.read('root', { verb: 'FETCH', path: '/graph.md' })).body));
    assert.ok(graph.edges.some((e) => e.from === 'mark://team-c/old-2.md' && e.to === 'mark://team-c/old-3.md'));
  });

  it('asks every document conditionally when the catalog reports them all changed', async () => {
    const base = await crawl();
    const early = {
      ...base.state,
      worlds: new Map(
        [...base.state.worlds].map(([w, s]) => [w, { ...s, changedAfter: new Date('2000-01-01T00:00:00Z') }]),
      ),
    };
    const again = await crawl(early);
    assert.equal(teamC(again).skippedByCatalog, 0);
    assert.equal(teamC(again).skipped, 4, 'every document answered not-modified instead');
  });

  it('asks every document conditionally when the catalog LOOKUP fails', async () => {
    const base = await crawl();
    const noLookup: WorldGateway = {
      list: () => gateway.list(),
      get: (name) => gateway.get(name),
      canWrite: (w, i) => gateway.canWrite(w, i),
      write: (w, i, c) => gateway.write(w, i, c),
      close: async () => {},
      read: (w, c) =>
        c.verb === 'LOOKUP'
          ? Promise.resolve({ status: 'bad-request', metadata: {}, body: new Uint8Array(0) })
          : gateway.read(w, c),
    };
    const again = await runFederationCrawl({
      gateway: noLookup,
      hub: 'root',
      now,
      identity: writerIdentity,
      previous: base.state,
    });
    assert.equal(teamC(again).skippedByCatalog, 0);
    assert.equal(teamC(again).skipped, 4);
    assert.equal(teamC(again).complete, true);
  });

  it('does not advance the cutoff after an incomplete crawl', async () => {
    const base = await crawl();
    const cutoff = base.state.worlds.get('team-c')!.changedAfter;
    gateway.unreachable.add('team-c');
    try {
      const down = await crawl(base.state);
      assert.deepEqual(down.state.worlds.get('team-c')!.changedAfter, cutoff);
    } finally {
      gateway.unreachable.clear();
    }
  });
});
