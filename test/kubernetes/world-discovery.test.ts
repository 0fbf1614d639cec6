/**
 * Live world discovery from labelled Services: an informer (the real
 * client-node ListWatch) against a fake Kubernetes API server, covering the
 * list then watch from its resourceVersion, bookmarks, 410 Gone and relist,
 * restart with backoff after a failed list, and the merge rules (configured
 * worlds win; a contested name stays with the Service serving it, the oldest
 * among Services listed together; test/security/discovery-takeover.test.ts
 * has the takeover attempts).
 */
import { beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { V1Service } from '@kubernetes/client-node';
import {
  KubernetesBackendError,
  registrySink,
  systemClock,
  worldFromService,
  type DiscoveredWorld,
  type WorldDiscoveryOptions,
} from '../../src/broker/kubernetes/index.ts';
import { openAllowList, worldAllows } from '../../src/broker/worlds/allowlist.ts';
import { WorldRegistry } from '../../src/broker/worlds/registry.ts';
import { useDiscoveryFixture, worldService } from './discovery-fixture.ts';
import { assertOnlyDeclaredCalls, eventually } from './helpers.ts';

const fixture = useDiscoveryFixture();
let log: string[];

const sink = {
  upsert: (world: DiscoveredWorld) =>
    void log.push(`upsert ${world.name} ${world.address}${world.publicUrl ? ` ${world.publicUrl}` : ''}`),
  remove: (name: string) => void log.push(`remove ${name}`),
};

/** Discovery into `log`, restarting after a failed list at once (backoff 1 ms, at most 4). */
async function startDiscovery(options: Partial<WorldDiscoveryOptions> = {}) {
  await fixture.start({ sink, restartBackoff: { initialMs: 1, maxMs: 4 }, ...options });
}

const watches = () => fixture.server.requests.filter((request) => request.verb === 'watch');
const lists = () => fixture.server.requests.filter((request) => request.verb === 'list');

beforeEach(() => {
  log = [];
});

describe('world discovery (fake API server, real client-node informer)', () => {
  it("adds Services from the list, then from the watch started at the list's resourceVersion", async () => {
    fixture.server.store.create('services', worldService('team-a', 'team-a'));
    fixture.server.store.create('services', worldService('apps', 'web', { app: 'web' }));
    const listedAt = fixture.server.store.revision;
    await startDiscovery();
    assert.deepEqual(log, ['upsert team-a team-a.team-a.svc.cluster.local:6309']);
    await eventually(() => fixture.server.openWatches === 1, 'the watch');
    const watch = watches()[0]!;
    assert.equal(watch.namespace, null, 'cluster-wide');
    assert.equal(watch.query.get('resourceVersion'), String(listedAt));
    assert.equal(watch.query.get('labelSelector'), 'demarkus.io/world');
    assert.equal(watch.query.get('allowWatchBookmarks'), 'true');
    assert.equal(lists()[0]!.query.get('labelSelector'), 'demarkus.io/world');

    fixture.server.store.create(
      'services',
      worldService('team-b', 'team-b', undefined, {
        port: 7000,
        annotations: { 'demarkus.io/public-url': 'mark://team-b.example.com:7000' },
      }),
    );
    await eventually(() => log.length === 2, 'the watched add');
    assert.equal(log[1], 'upsert team-b team-b.team-b.svc.cluster.local:7000 mark://team-b.example.com:7000');
    assertOnlyDeclaredCalls(fixture.server.requests, {
      brokerNamespace: 'demarkus',
      worlds: {},
      discoveryNamespaces: null,
    });
  });

  it('removes a world when its Service is deleted or loses the label, and updates it on change', async () => {
    fixture.server.store.create('services', worldService('team-a', 'team-a'));
    fixture.server.store.create('services', worldService('team-b', 'team-b'));
    await startDiscovery();
    await eventually(() => fixture.server.openWatches === 1, 'the watch');
    fixture.server.store.delete('services', 'team-a', 'team-a');
    await eventually(() => log.includes('remove team-a'), 'removal on delete');
    const b = fixture.server.store.get('services', 'team-b', 'team-b')!;
    fixture.server.store.update('services', { ...b, spec: { ports: [{ name: 'mark', protocol: 'UDP', port: 6310 }] } });
    await eventually(() => log.includes('upsert team-b team-b.team-b.svc.cluster.local:6310'), 'update on change');
    const changed = fixture.server.store.get('services', 'team-b', 'team-b')!;
    fixture.server.store.update('services', { ...changed, metadata: { ...changed.metadata, labels: {} } });
    await eventually(() => log.includes('remove team-b'), 'removal when the label goes');
    assert.deepEqual(fixture.discovery.worlds(), []);
  });

  it('resumes from the last bookmark after the server ends the watch, without relisting', async () => {
    fixture.server.store.create('services', worldService('team-a', 'team-a'));
    await startDiscovery();
    await eventually(() => fixture.server.openWatches === 1, 'the watch');
    for (let i = 0; i < 3; i++)
      fixture.server.store.create('services', worldService('apps', `web-${i}`, { app: 'web' })); // not worlds: no events reach the watch
    assert.equal(fixture.server.sendBookmarks(), 1);
    const bookmarked = fixture.server.store.revision;
    await eventually(() => watches().length === 1 && log.length === 1, 'settled');
    fixture.server.store.compact(); // history before the bookmark is gone
    fixture.server.closeWatches();
    await eventually(() => watches().length === 2 && fixture.server.openWatches === 1, 'the resumed watch');
    assert.equal(watches()[1]!.query.get('resourceVersion'), String(bookmarked));
    assert.equal(lists().length, 1, 'no relist');
    fixture.server.store.create('services', worldService('team-c', 'team-c'));
    await eventually(() => log.includes('upsert team-c team-c.team-c.svc.cluster.local:6309'), 'events after resuming');
  });

  it("asks for a 25 s deadline, under client-node's 30 s inactivity timeout, and resumes a quiet watch from the bookmark sent before it, without relisting", async () => {
    fixture.server.store.create('services', worldService('team-a', 'team-a'));
    // The fake server makes each second of the deadline 120 ms: the 25 s asked end after 3 s.
    fixture.server.watchSecondMs = 120;
    await startDiscovery();
    await eventually(() => fixture.server.openWatches === 1, 'the watch');
    for (let i = 0; i < 3; i++)
      fixture.server.store.create('services', worldService('apps', `web-${i}`, { app: 'web' })); // not worlds: the watch stays quiet
    const quietAt = fixture.server.store.revision;
    fixture.server.store.compact(); // the list's resourceVersion is out of the event window
    // Nothing reaches the watch but the server's bookmark, two (fake) seconds before its deadline; then it ends.
    await eventually(() => watches().length === 2, 'the watch resumed after its deadline', 20_000);
    assert.equal(watches()[0]!.query.get('timeoutSeconds'), '25');
    assert.equal(watches()[1]!.query.get('resourceVersion'), String(quietAt), "from the bookmark's resourceVersion");
    assert.equal(lists().length, 1, 'no relist');
    fixture.server.store.create('services', worldService('team-c', 'team-c'));
    await eventually(() => log.includes('upsert team-c team-c.team-c.svc.cluster.local:6309'), 'events after resuming');
  });

  it('serves at most maxWorlds names: the oldest at start-up; one more is refused, reported and counted until a place frees', async () => {
    const create = (name: string, iso: string) =>
      fixture.server.store.create('services', worldService(name, name), new Date(iso));
    create('team-c', '2026-01-03T00:00:00Z');
    create('team-a', '2026-01-01T00:00:00Z');
    create('team-b', '2026-01-02T00:00:00Z');
    const issues: string[] = [];
    const refused: number[] = [];
    await startDiscovery({
      maxWorlds: 2,
      onIssue: (issue) => void issues.push(`${issue.service}: ${issue.problem}`),
      onRefused: (count) => void refused.push(count),
    });
    assert.deepEqual(
      fixture.discovery.worlds().map((world) => world.name),
      ['team-a', 'team-b'],
      'the two oldest, whatever the list order',
    );
    assert.deepEqual(issues, [
      'team-c/team-c: world "team-c" is refused: discovery already serves 2 worlds (discovery.maxWorlds); it is served once one of them goes',
    ]);
    assert.deepEqual(refused, [1]);
    await eventually(() => fixture.server.openWatches === 1, 'the watch');

    fixture.server.store.create('services', worldService('team-d', 'team-d'));
    await eventually(() => refused.at(-1) === 2, 'the watched claimant refused too');
    assert.equal(issues.length, 2);
    fixture.server.store.delete('services', 'team-a', 'team-a');
    await eventually(
      () => log.includes('upsert team-c team-c.team-c.svc.cluster.local:6309'),
      'the oldest refused served',
    );
    assert.deepEqual(
      fixture.discovery.worlds().map((world) => world.name),
      ['team-b', 'team-c'],
    );
    assert.equal(refused.at(-1), 1, 'team-d still refused');
    fixture.server.store.delete('services', 'team-d', 'team-d');
    await eventually(() => refused.at(-1) === 0, 'a refused Service that goes is no longer counted');
  });

  it('relists after 410 Gone and emits what changed while it was not watching', async () => {
    fixture.server.store.create('services', worldService('team-a', 'team-a'));
    fixture.server.store.create('services', worldService('team-b', 'team-b'));
    await startDiscovery();
    await eventually(() => fixture.server.openWatches === 1, 'the watch');
    fixture.server.holdOpenWatches(); // the watch falls behind...
    fixture.server.store.delete('services', 'team-a', 'team-a');
    fixture.server.store.create('services', worldService('team-c', 'team-c'));
    fixture.server.store.compact(); // ...and its resourceVersion is compacted away
    fixture.server.closeWatches();
    await eventually(
      () => log.includes('remove team-a') && log.some((line) => line.startsWith('upsert team-c')),
      'relist results',
    );
    await eventually(() => watches().length === 3, 'the watch after the relist');
    assert.equal(lists().length, 2, 'listed again');
    const resumed = watches();
    assert.equal(resumed.length, 3, 'watch, 410 watch, watch after relist');
    assert.ok(
      Number(resumed[1]!.query.get('resourceVersion')) < fixture.server.store.oldestWatchable,
      'the second watch asked for a compacted version',
    );
    assert.deepEqual(
      fixture.discovery.worlds().map((world) => world.name),
      ['team-b', 'team-c'],
    );
  });

  it('restarts with doubling backoff when the list fails, then discovers', async () => {
    fixture.server.store.create('services', worldService('team-a', 'team-a'));
    fixture.server.fail((request) => request.verb === 'list', 500, 3);
    const pauses: number[] = [];
    const errors: string[] = [];
    await startDiscovery({
      clock: {
        now: Date.now,
        sleep: (ms, signal) => {
          pauses.push(ms);
          return systemClock.sleep(0, signal);
        },
      },
      onError: (what) => void errors.push(what),
      restartBackoff: { initialMs: 100, maxMs: 250 },
    });
    await eventually(() => log.length === 1, 'discovery after failures');
    assert.deepEqual(pauses, [100, 200, 250]);
    assert.deepEqual(errors, [
      '(all namespaces); it lists again in 100 ms',
      '(all namespaces); it lists again in 200 ms',
      '(all namespaces); it lists again in 250 ms',
    ]);
    assert.deepEqual(
      lists().map((request) => request.status),
      [500, 500, 500, 200],
    );
  });

  it('ends a list the API server never answers when discovery stops (the list is a bounded call)', async () => {
    const unhang = fixture.server.hang((request) => request.verb === 'list');
    const discovery = fixture.replica({ sink });
    try {
      const started = discovery.start();
      await eventually(() => fixture.server.openHungRequests === 1, 'the hung list');
      const stopped = discovery.stop();
      await eventually(() => fixture.server.openHungRequests === 0, 'the hung list closed by the client');
      await stopped;
      await started;
      assert.deepEqual(log, [], 'nothing discovered from an unanswered list');
    } finally {
      unhang();
      await discovery.stop();
    }
  });

  it("reports a failed list or watch by scope and HTTP status only, never client-node's text with the body and headers", async () => {
    fixture.server.store.create('services', worldService('team-a', 'team-a'));
    fixture.server.fail((request) => request.verb === 'list', 403, 1);
    fixture.server.fail((request) => request.verb === 'watch', 503, 1);
    const reported: unknown[] = [];
    await startDiscovery({ namespaces: ['team-a'], onError: (_what, error) => void reported.push(error) });
    await eventually(() => reported.length === 2 && log.length === 1, 'both failures, then discovery');
    assert.deepEqual(
      reported.map((error) => (error as Error).message),
      ['kubernetes: list/watch services team-a: HTTP 403', 'kubernetes: list/watch services team-a: HTTP 503'],
    );
    for (const error of reported) {
      assert.ok(error instanceof KubernetesBackendError);
      assert.doesNotMatch(error.message, /injected failure|content-type|headers|Forbidden/i);
    }
  });

  it('watches only the configured namespaces when given a list', async () => {
    fixture.server.store.create('services', worldService('team-a', 'team-a'));
    fixture.server.store.create('services', worldService('elsewhere', 'rogue'));
    await startDiscovery({ namespaces: ['team-a', 'team-b'] });
    await eventually(() => fixture.server.openWatches === 2, 'two watches');
    fixture.server.store.create('services', worldService('team-b', 'team-b'));
    fixture.server.store.create('services', worldService('elsewhere', 'rogue-2'));
    await eventually(() => log.length === 2, 'team-b');
    assert.deepEqual(log.sort(), [
      'upsert team-a team-a.team-a.svc.cluster.local:6309',
      'upsert team-b team-b.team-b.svc.cluster.local:6309',
    ]);
    assert.deepEqual([...new Set(fixture.server.requests.map((request) => request.namespace))].sort(), [
      'team-a',
      'team-b',
    ]);
    assertOnlyDeclaredCalls(fixture.server.requests, {
      brokerNamespace: 'demarkus',
      worlds: {},
      discoveryNamespaces: ['team-a', 'team-b'],
    });
  });

  it('leaves configured worlds to the config and, among Services of one age, lets the first in namespace/name order serve a contested name', async () => {
    const issues: string[] = [];
    fixture.server.store.create('services', worldService('hub', 'root'));
    const sameAge = new Date('2026-01-01T00:00:00Z'); // one creationTimestamp for both
    fixture.server.store.create('services', worldService('b-ns', 'shared', { 'demarkus.io/world': 'shared' }), sameAge);
    fixture.server.store.create('services', worldService('a-ns', 'shared', { 'demarkus.io/world': 'shared' }), sameAge);
    await startDiscovery({
      configuredWorlds: ['root'],
      onIssue: (issue) => void issues.push(`${issue.service}: ${issue.problem}`),
    });
    assert.deepEqual(log, ['upsert shared shared.a-ns.svc.cluster.local:6309']);
    assert.ok(issues.includes('hub/root: world "root" is configured; the configured entry is used'));
    assert.ok(
      issues.includes(
        'b-ns/shared: world "shared" is already served by Service a-ns/shared; this Service is ignored until that one goes',
      ),
    );
    await eventually(() => fixture.server.openWatches === 1, 'the watch');
    fixture.server.store.delete('services', 'a-ns', 'shared');
    await eventually(() => log.length === 2, 'promotion');
    assert.equal(log[1], 'upsert shared shared.b-ns.svc.cluster.local:6309');
  });
});

describe('discovery into the world registry (fake API server)', () => {
  it('adds and removes discovered worlds in the registry while configured ones stay', async () => {
    const registry = new WorldRegistry([
      {
        name: 'root',
        address: 'root.root.svc.cluster.local:6309',
        source: 'config',
        allow: openAllowList,
        writeTokenPaths: ['/**'],
        tokens: { namespace: 'root', secret: 'root-tokens' },
      },
    ]);
    const changes: string[] = [];
    registry.onChange((change) => void changes.push(`${change.type} ${change.world.name}`));
    fixture.server.store.create('services', worldService('hub', 'root'));
    fixture.server.store.create('services', worldService('team-a', 'team-a'));
    await fixture.start({ sink: registrySink(registry), configuredWorlds: ['root'] });
    assert.deepEqual(
      registry.list().map((world) => `${world.name}:${world.source}:${world.address}`),
      ['root:config:root.root.svc.cluster.local:6309', 'team-a:discovery:team-a.team-a.svc.cluster.local:6309'],
    );
    await eventually(() => fixture.server.openWatches === 1, 'the watch');
    fixture.server.store.delete('services', 'team-a', 'team-a');
    await eventually(() => changes.includes('removed team-a'), 'removal');
    assert.deepEqual(changes, ['added team-a', 'removed team-a']);
    assert.deepEqual(
      registry.list().map((world) => world.name),
      ['root'],
    );
  });

  it('makes a discovered world readable but writable by nobody until it is configured', async () => {
    const registry = new WorldRegistry();
    registrySink(registry).upsert({
      name: 'team-x',
      namespace: 'team-x',
      service: 'team-x/team-x',
      address: 'team-x.team-x.svc.cluster.local:6309',
    });
    const discovered = registry.get('team-x')!;
    const identity = {
      subject: 's',
      email: 'alice@example.com',
      emailVerified: true,
      groups: ['admins'],
      issuedBy: 'upstream' as const,
    };
    assert.equal(worldAllows(discovered.allow, identity), false);
    assert.equal(
      worldAllows(openAllowList, identity),
      true,
      'whereas an empty configured allowlist lets everyone write',
    );
    assert.deepEqual([discovered.writeTokenPaths, discovered.tokens.secret], [[], undefined]);
  });
});

describe('worldFromService', () => {
  const svc = (
    labels: Record<string, string>,
    annotations: Record<string, string> = {},
    ports: V1Service['spec'] = { ports: [] },
  ): V1Service => ({ metadata: { name: 'svc', namespace: 'ns', labels, annotations }, spec: ports });

  it('takes the world name from the demarkus.io/world label and the port named mark', () => {
    const reading = worldFromService(
      svc(
        { 'demarkus.io/world': 'team-a' },
        {},
        {
          ports: [
            { name: 'metrics', protocol: 'TCP', port: 9090 },
            { name: 'other', protocol: 'UDP', port: 7000 },
            { name: 'mark', protocol: 'UDP', port: 6310 },
          ],
        },
      ),
      'corp.local',
    );
    assert.deepEqual(reading, {
      world: { name: 'team-a', namespace: 'ns', service: 'ns/svc', address: 'svc.ns.svc.corp.local:6310' },
    });
  });

  it('defaults to port 6309 when the Service lists no UDP port', () => {
    assert.deepEqual(worldFromService(svc({ 'demarkus.io/world': 'a' }), 'cluster.local'), {
      world: { name: 'a', namespace: 'ns', service: 'ns/svc', address: 'svc.ns.svc.cluster.local:6309' },
    });
  });

  it('skips a label value that is not a world name, and a public URL that is not mark://', () => {
    assert.deepEqual(worldFromService(svc({ 'demarkus.io/world': 'Team_A' }), 'cluster.local'), {
      skipped: 'label demarkus.io/world="Team_A" is not a valid world name',
    });
    assert.deepEqual(worldFromService(svc({ 'demarkus.io/world': '' }), 'cluster.local'), {
      skipped: 'label demarkus.io/world="" is not a valid world name',
    });
    assert.deepEqual(
      worldFromService(
        svc({ 'demarkus.io/world': 'a' }, { 'demarkus.io/public-url': 'https://a.example.com' }),
        'cluster.local',
      ),
      { skipped: 'annotation demarkus.io/public-url must be a mark://host[:port] URL' },
    );
  });
});
