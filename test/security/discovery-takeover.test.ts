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
 * The real WorldDiscovery (client-node informer) against the fake Kubernetes
 * API server of test/kubernetes/ (discovery-fixture.ts), which sets creationTimestamp.
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
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

async function startDiscovery() {
  await fixture.start({ onIssue: (issue) => void issues.push(`${issue.service}: ${issue.problem}`) });
  await eventually(() => fixture.server.openWatches === 1, 'the watch');
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
    const old = fixture.server.store.get('services', 'aaa-sandbox', 'x')!;
    fixture.server.store.update('services', {
      ...old,
      metadata: { ...old.metadata, labels: { 'demarkus.io/world': 'team-b' } },
    });
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
});
