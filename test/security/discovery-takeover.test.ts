/**
 * Threat: anyone who may create a Service in a watched namespace takes over a
 * world name that discovery already serves. With `demarkus.io/world=team-b` on
 * a Service in a namespace that sorts earlier (`aaa-sandbox/x`), every
 * `mark://team-b/...` read, search and WATCH of the broker goes to the
 * attacker's server (and for `root`, its `/graph.md` becomes the hub seed).
 *
 * All three attacks below succeeded before the fix (checked by running this
 * file against it): the DiscoveryIndex served a contested name from the
 * Service first in `namespace/name` order, so a newer Service, a Service
 * relabelled later, and at start-up a newer Service listed first all won.
 * Now a served name stays with its Service while it exists, and among
 * Services seen together (the start-up list, or after the serving one goes)
 * the oldest by creationTimestamp wins; the loser is reported, naming both.
 *
 * The fourth attack, a replica started during a conflict, succeeded until
 * 2026-12-07 (checked by running it against the code before): Kubernetes
 * records no time for a label, so the fresh replica chose the relabelled
 * Service, older than the legitimate one, while the running replica kept the
 * legitimate one. Now the replicas record which Service serves each name in
 * the broker's shared state, and a fresh replica honours the record while
 * that Service still claims the name.
 *
 * The fifth and sixth attacks, a replica whose first list failed overwriting
 * the record, succeeded until 2026-12-07 (checked by running them against the
 * code before): the guard meant to keep such a replica from recording read a
 * flag set once `start()` resolved, and the informer's start resolves even
 * when its list fails, so the guard never fired. With one namespace the
 * relist applied the Services one by one, the first listed (`aaa-sandbox/x`)
 * took the name and was recorded over `team-b/team-b`; with namespaces a and
 * b, b's list failing, the replica served and recorded `a/x`, the only
 * claimant it saw, over `b/x`. Every replica started after either would have
 * served the attacker's Service. Now a replica records only once every scope
 * has listed, and never a name it chose before that.
 *
 * The seventh attack, a replica whose first list failed serving the
 * attacker's Service, succeeded until 2026-12-07 (checked by running it
 * against the code before): with namespaces a and b, the record naming b/x
 * for `team-b` and b's first list failing, the replica served a/x, the only
 * claimant it saw, and kept it after b relisted, since the serving Service
 * kept its name. Now, until every scope has listed, the Service the record
 * names takes the name back when it claims it. The two tests after it guard
 * that rule against a stale record (both pass on the code before, and each
 * failed when its part of the fix was left out): the record is read again
 * before a relist, and a recorded Service seen to stop claiming the name
 * loses its place, so neither a Service the running replicas moved away
 * from nor one relabelled back to the name wins.
 *
 * The real WorldDiscovery (client-node informer) against the fake Kubernetes
 * API server of test/kubernetes/ (discovery-fixture.ts), which sets
 * creationTimestamp; the replicas' shared state is the in-memory document
 * store (in a cluster, the broker-namespace Secrets).
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import type { DiscoveryIssue, WorldDiscovery } from '../../src/broker/kubernetes/index.ts';
import { systemClock } from '../../src/broker/kubernetes/index.ts';
import { ServedNamesRecord } from '../../src/broker/kubernetes/served-names.ts';
import { MemoryStateStore, type StateDocumentStore } from '../../src/broker/state/index.ts';
import { useDiscoveryFixture, worldService } from '../kubernetes/discovery-fixture.ts';
import { eventually } from '../kubernetes/helpers.ts';

const fixture = useDiscoveryFixture();
let issues: string[];

const legitimate = 'team-b.team-b.svc.cluster.local:6309';
const attacker = 'x.aaa-sandbox.svc.cluster.local:6309';

/** Creates the Service as if at `iso` (the API server sets creationTimestamp, not the client). */
function createAt(iso: string, object: ReturnType<typeof worldService>) {
  fixture.server.store.create('services', object, new Date(iso));
}

const onIssue = (issue: DiscoveryIssue) => void issues.push(`${issue.service}: ${issue.problem}`);

/** Starts this test's discovery; `state`: the broker state the replicas share. */
async function startDiscovery(state?: StateDocumentStore) {
  await fixture.start({ onIssue, ...(state ? { state } : {}) });
  await eventually(() => fixture.server.openWatches === 1, 'the watch');
}

/** Another replica's discovery sharing `state`, not started. */
const replicaDiscovery = (state: StateDocumentStore) => fixture.replica({ onIssue, state });

/** Relabels an existing Service to claim world `name`. */
function relabel(namespace: string, serviceName: string, name: string) {
  const old = fixture.server.store.get('services', namespace, serviceName)!;
  fixture.server.store.update('services', {
    ...old,
    metadata: { ...old.metadata, labels: { 'demarkus.io/world': name } },
  });
}

const served = (name: string) => fixture.discovery.worlds().find((world) => world.name === name)?.address;

beforeEach(() => {
  issues = [];
});

describe('discovery name takeover (fake API server, real client-node informer)', () => {
  it('a new Service in an earlier-sorting namespace does not take over a served world', async () => {
    createAt('2026-01-01T00:00:00Z', worldService('team-b', 'team-b', { 'demarkus.io/world': 'team-b' }));
    await startDiscovery();
    assert.equal(served('team-b'), legitimate);

    createAt('2026-06-01T00:00:00Z', worldService('aaa-sandbox', 'x', { 'demarkus.io/world': 'team-b' }));
    await eventually(() => issues.some((issue) => issue.includes('aaa-sandbox/x')), 'the claim is seen');
    assert.equal(served('team-b'), legitimate, 'the world still dials the Service that served it');
    assert.deepEqual(issues, [
      'aaa-sandbox/x: world "team-b" is already served by Service team-b/team-b; this Service is ignored until that one goes',
    ]);
  });

  it('an older Service relabelled to a served name does not take it over', async () => {
    createAt('2025-01-01T00:00:00Z', worldService('aaa-sandbox', 'x', { app: 'sandbox' }));
    createAt('2026-01-01T00:00:00Z', worldService('team-b', 'team-b', { 'demarkus.io/world': 'team-b' }));
    await startDiscovery();
    relabel('aaa-sandbox', 'x', 'team-b');
    await eventually(() => issues.some((issue) => issue.includes('aaa-sandbox/x')), 'the claim is seen');
    assert.equal(served('team-b'), legitimate);
  });

  it('at start-up the oldest Service wins, however its namespace sorts', async () => {
    createAt('2026-01-01T00:00:00Z', worldService('team-b', 'team-b', { 'demarkus.io/world': 'team-b' }));
    createAt('2026-06-01T00:00:00Z', worldService('aaa-sandbox', 'x', { 'demarkus.io/world': 'team-b' }));
    await startDiscovery();
    assert.equal(served('team-b'), legitimate);
    assert.ok(
      issues.some((issue) =>
        issue.startsWith('aaa-sandbox/x: world "team-b" is already served by Service team-b/team-b'),
      ),
      issues.join('\n'),
    );
    // Only when the serving Service goes does the next claimant serve the name.
    fixture.server.store.delete('services', 'team-b', 'team-b');
    await eventually(() => served('team-b') === attacker, 'the remaining claimant serves');
  });

  it('a replica started during a conflict serves the Service the running replicas serve', async () => {
    const state = new MemoryStateStore();
    createAt('2025-01-01T00:00:00Z', worldService('aaa-sandbox', 'x', { app: 'sandbox' }));
    createAt('2026-01-01T00:00:00Z', worldService('team-b', 'team-b', { 'demarkus.io/world': 'team-b' }));
    await startDiscovery(state);
    assert.equal(served('team-b'), legitimate);
    relabel('aaa-sandbox', 'x', 'team-b');
    await eventually(() => issues.some((issue) => issue.includes('aaa-sandbox/x')), 'the claim is seen');

    const servedBy = (replica: WorldDiscovery) => replica.worlds().find((world) => world.name === 'team-b')?.address;
    const fresh = replicaDiscovery(state);
    try {
      await fresh.start();
      assert.equal(servedBy(fresh), legitimate, 'the fresh replica serves what the running one serves');
      assert.equal(served('team-b'), legitimate);
      // Once the serving Service goes, both move to the remaining claimant, and a replica started then agrees.
      fixture.server.store.delete('services', 'team-b', 'team-b');
      await eventually(() => served('team-b') === attacker && servedBy(fresh) === attacker, 'both replicas move');
      // An even older Service relabelled now: the running replicas keep the one they moved to.
      createAt('2024-01-01T00:00:00Z', worldService('old-team', 'y', { app: 'old' }));
      relabel('old-team', 'y', 'team-b');
      await eventually(() => issues.filter((issue) => issue.startsWith('old-team/y')).length === 2, 'both see it');
      const later = replicaDiscovery(state);
      try {
        await later.start();
        assert.equal(servedBy(later), attacker, 'the record follows what the replicas serve, not the age');
      } finally {
        await later.stop();
      }
    } finally {
      await fresh.stop();
    }
  });

  describe('a replica whose first list failed', () => {
    /** Restarts a failed scope at once, so the test does not wait out the backoff. */
    const immediateRestart = {
      now: Date.now,
      sleep: (_ms: number, signal?: AbortSignal) => systemClock.sleep(0, signal),
    };

    /** Holds a failed scope's restart until `open()`; `stop()` still ends the wait. */
    function gatedRestart() {
      let open = () => {};
      const gate = new Promise<void>((resolve) => {
        open = resolve;
      });
      const clock = {
        now: Date.now,
        sleep: (_ms: number, signal?: AbortSignal) =>
          new Promise<void>((resolve, reject) => {
            void gate.then(resolve);
            signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
          }),
      };
      return { clock, open };
    }

    const servedIn = (namespace: string) => `x.${namespace}.svc.cluster.local:6309`;

    /**
     * The record as the running replicas wrote it, after `fresh` has recorded a
     * name it saw only once its view was whole (`team-c`): the record's writes
     * run in order, so one it made for `team-b` would have landed by then.
     */
    async function recordAfterWholeView(state: StateDocumentStore, namespace: string) {
      const record = new ServedNamesRecord(state);
      fixture.server.store.create('services', worldService(namespace, 'team-c'));
      await eventually(async () => (await record.read()).has('team-c'), 'the whole replica records a new name');
      return record.read();
    }

    /**
     * The running replicas serve b/x for team-b and recorded it; a/x, older, claims team-b too; the
     * first list of namespace b fails, so a replica watching a and b starts with a partial view.
     */
    async function contestAcrossScopes(state: StateDocumentStore) {
      await new ServedNamesRecord(state).record('team-b', 'b/x');
      createAt('2025-01-01T00:00:00Z', worldService('a', 'x', { 'demarkus.io/world': 'team-b' }));
      createAt('2026-01-01T00:00:00Z', worldService('b', 'x', { 'demarkus.io/world': 'team-b' }));
      fixture.server.fail((request) => request.verb === 'list' && request.namespace === 'b', 500, 1);
    }

    it('does not record the Service its relist happened to list first', async () => {
      const state = new MemoryStateStore();
      // The running replicas serve team-b/team-b and recorded it; then an older Service was relabelled to team-b.
      await new ServedNamesRecord(state).record('team-b', 'team-b/team-b');
      createAt('2025-01-01T00:00:00Z', worldService('aaa-sandbox', 'x', { 'demarkus.io/world': 'team-b' }));
      createAt('2026-01-01T00:00:00Z', worldService('team-b', 'team-b', { 'demarkus.io/world': 'team-b' }));
      fixture.server.fail((request) => request.verb === 'list', 500, 1);

      await fixture.start({ onIssue, state, clock: immediateRestart });
      await eventually(() => fixture.server.openWatches === 1, 'the relist and its watch');

      const record = await recordAfterWholeView(state, 'team-c');
      assert.equal(record.get('team-b'), 'team-b/team-b', 'the record still names what the running replicas serve');
    });

    it('does not record a contested name when only the scope of the recorded Service failed', async () => {
      const state = new MemoryStateStore();
      await contestAcrossScopes(state);

      await fixture.start({ onIssue, state, namespaces: ['a', 'b'], clock: immediateRestart });
      await eventually(() => fixture.server.openWatches === 2, 'both scopes watch, b after its relist');

      const record = await recordAfterWholeView(state, 'b');
      assert.equal(record.get('team-b'), 'b/x', 'the record still names what the running replicas serve');
    });

    it('serves the recorded Service once its scope relists, not the one it saw while partial', async () => {
      const state = new MemoryStateStore();
      await contestAcrossScopes(state);

      await fixture.start({ onIssue, state, namespaces: ['a', 'b'], clock: immediateRestart });
      await eventually(() => fixture.server.openWatches === 2, 'both scopes watch, b after its relist');

      assert.equal(served('team-b'), servedIn('b'), 'the replica serves what the running replicas serve');
      assert.ok(
        issues.includes(
          'a/x: world "team-b" is already served by Service b/x; this Service is ignored until that one goes',
        ),
        issues.join('\n'),
      );
      // Its choice now agrees with the record, so it records the name's next Service as any replica would.
      fixture.server.store.delete('services', 'b', 'x');
      const record = new ServedNamesRecord(state);
      await eventually(async () => (await record.read()).get('team-b') === 'a/x', 'the next Service is recorded');
      assert.equal(served('team-b'), servedIn('a'));
    });

    it('reads the record again before the relist, so a Service the replicas moved away from does not win', async () => {
      const state = new MemoryStateStore();
      const record = new ServedNamesRecord(state);
      await contestAcrossScopes(state);
      const restart = gatedRestart();

      await fixture.start({ onIssue, state, namespaces: ['a', 'b'], clock: restart.clock });
      assert.equal(served('team-b'), servedIn('a'), 'while b is unlisted, a/x is the only claimant seen');
      // Meanwhile on the running replicas: b/x is relabelled away, they move to a/x, and b/x's claim comes back later.
      relabel('b', 'x', 'elsewhere');
      await record.record('team-b', 'a/x');
      relabel('b', 'x', 'team-b');

      restart.open();
      // That b/x is reported losing to a/x shows the relist was applied, not merely pending.
      await eventually(
        () =>
          issues.includes(
            'b/x: world "team-b" is already served by Service a/x; this Service is ignored until that one goes',
          ),
        'b relisted and b/x ignored',
      );
      assert.equal(served('team-b'), servedIn('a'), 'the replica serves what the running replicas serve now');
    });

    it('does not give the name back to a recorded Service that stopped claiming it and claims it again', async () => {
      const state = new MemoryStateStore();
      await new ServedNamesRecord(state).record('team-b', 'a/s');
      createAt('2025-01-01T00:00:00Z', worldService('a', 't', { 'demarkus.io/world': 'team-b' }));
      createAt('2026-01-01T00:00:00Z', worldService('a', 's', { 'demarkus.io/world': 'team-b' }));
      fixture.server.fail((request) => request.verb === 'list' && request.namespace === 'b', 500, 1);

      // b stays unlisted for the whole test, so the replica's view stays partial.
      await fixture.start({ onIssue, state, namespaces: ['a', 'b'], clock: gatedRestart().clock });
      assert.equal(served('team-b'), 's.a.svc.cluster.local:6309', 'the recorded Service serves');
      relabel('a', 's', 'elsewhere');
      await eventually(() => served('team-b') === 't.a.svc.cluster.local:6309', 'the other claimant serves');
      relabel('a', 's', 'team-b');
      await eventually(
        () =>
          issues.includes(
            'a/s: world "team-b" is already served by Service a/t; this Service is ignored until that one goes',
          ),
        'the renewed claim is seen and ignored',
      );
      assert.equal(served('team-b'), 't.a.svc.cluster.local:6309', 'a later claim, as on the running replicas');
    });
  });
});
