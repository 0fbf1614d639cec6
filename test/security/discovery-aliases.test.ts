/**
 * Threat: anyone who may edit a Service in a watched namespace captures or
 * breaks a configured world's aliases. Tools read a URL whose authority is a
 * world's public URL or dial address as that world (world-aliases.ts), and a
 * discovered world's public URL is the Service's `demarkus.io/public-url`
 * annotation. With the configured world team-a (public URL
 * mark://team-a.example.com, address team-a.team-a.svc.cluster.local:6309):
 *
 * - annotating `mark://team-a:6309` made `mark://team-a:6309/x.md` read the
 *   attacker's world;
 * - annotating team-a's public URL or address made that alias ambiguous, so
 *   `mark://team-a.example.com/x.md` no longer reached team-a.
 *
 * Both succeeded before the fix (checked by running this file against the
 * code before: each test fails with its half of the fix left out). Now such
 * an annotation is refused and reported like any other bad annotation, and
 * configured worlds' aliases win over discovered ones whatever a discovered
 * world says.
 *
 * The real WorldDiscovery (client-node informer) against the fake API server
 * of test/kubernetes/ (discovery-fixture.ts).
 */
import assert from 'node:assert/strict';
import { beforeEach, describe, it } from 'node:test';
import {
  discoveredWorldDefinition,
  type DiscoveredWorld,
  type DiscoveryIssue,
} from '../../src/broker/kubernetes/index.ts';
import type { WorldInfo } from '../../src/broker/worlds/gateway.ts';
import { canonicalWorldUrl, worldAuthorities } from '../../src/broker/worlds/world-aliases.ts';
import { useDiscoveryFixture, worldService } from '../kubernetes/discovery-fixture.ts';
import { eventually } from '../kubernetes/helpers.ts';

const fixture = useDiscoveryFixture();

const teamA: WorldInfo = {
  name: 'team-a',
  address: 'team-a.team-a.svc.cluster.local:6309',
  publicUrl: 'mark://team-a.example.com',
  source: 'config',
};

let discovered: Map<string, DiscoveredWorld>;
let issues: DiscoveryIssue[];
beforeEach(() => {
  discovered = new Map();
  issues = [];
});

/** What tools see: the configured world and whatever discovery published. */
const worlds = (): WorldInfo[] => [teamA, ...[...discovered.values()].map(discoveredWorldDefinition)];

async function startDiscovery() {
  await fixture.start({
    configuredWorlds: [teamA.name],
    configuredAuthorities: worldAuthorities(teamA),
    sink: { upsert: (world) => void discovered.set(world.name, world), remove: (name) => void discovered.delete(name) },
    onIssue: (issue) => void issues.push(issue),
  });
}

describe("a discovered public-url cannot take or blur another world's aliases (fake API server)", () => {
  it("refuses an annotation naming a world as its host, or a configured world's address or public URL", async () => {
    const hostile = {
      'tenant/by-name': 'mark://team-a:6309',
      'tenant/by-public-url': 'mark://team-a.example.com',
      'tenant/by-address': 'mark://team-a.team-a.svc.cluster.local:6309',
      'tenant/by-address-upper': 'mark://TEAM-A.team-a.svc.cluster.local:6309/',
    };
    let n = 0;
    for (const [service, url] of Object.entries(hostile)) {
      const [namespace, name] = service.split('/') as [string, string];
      fixture.server.store.create(
        'services',
        worldService(
          namespace,
          name,
          { 'demarkus.io/world': `evil-${++n}` },
          { annotations: { 'demarkus.io/public-url': url } },
        ),
      );
    }
    fixture.server.store.create(
      'services',
      worldService(
        'tenant',
        'honest',
        { 'demarkus.io/world': 'honest' },
        {
          annotations: { 'demarkus.io/public-url': 'mark://honest.example.com:6309' },
        },
      ),
    );
    await startDiscovery();
    await eventually(() => discovered.has('honest'), 'the honest world');

    assert.deepEqual([...discovered.keys()], ['honest'], 'every hostile Service refused');
    assert.deepEqual(issues.map((issue) => issue.service).sort(), Object.keys(hostile).sort());
    for (const issue of issues) assert.match(issue.problem, /^annotation demarkus\.io\/public-url /);
    assert.equal(canonicalWorldUrl('mark://team-a:6309/x.md', worlds()), 'mark://team-a:6309/x.md');
    assert.equal(canonicalWorldUrl('mark://team-a.example.com/x.md', worlds()), 'mark://team-a/x.md');
    assert.equal(canonicalWorldUrl('mark://team-a.team-a.svc.cluster.local:6309/x.md', worlds()), 'mark://team-a/x.md');
    assert.equal(canonicalWorldUrl('mark://honest.example.com/x.md', worlds()), 'mark://honest/x.md');
  });

  it("keeps a configured world's aliases when a discovered world claims the same ones", () => {
    // As a world from a broker without the refusal, or a registry fed by other means, would.
    const claimant: WorldInfo = {
      name: 'evil',
      address: teamA.address,
      publicUrl: teamA.publicUrl!,
      source: 'discovery',
    };
    for (const url of ['mark://team-a.example.com/x.md', 'mark://team-a.team-a.svc.cluster.local:6309/x.md'])
      assert.equal(canonicalWorldUrl(url, [claimant, teamA]), 'mark://team-a/x.md', url);
    const twoDiscovered: WorldInfo[] = [
      {
        name: 'one',
        address: 'a.ns.svc.cluster.local:6309',
        publicUrl: 'mark://shared.example.com',
        source: 'discovery',
      },
      {
        name: 'two',
        address: 'b.ns.svc.cluster.local:6309',
        publicUrl: 'mark://shared.example.com',
        source: 'discovery',
      },
    ];
    assert.equal(
      canonicalWorldUrl('mark://shared.example.com/x.md', twoDiscovered),
      'mark://shared.example.com/x.md',
      'an address two discovered worlds share is still not guessed',
    );
  });
});
