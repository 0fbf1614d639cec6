import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  WorldRegistry,
  resolveWorldAddress,
  type WorldChange,
  type WorldDefinition,
} from '../../../src/broker/worlds/index.ts';

const world = (
  name: string,
  address = `${name}.svc:6309`,
  source: WorldDefinition['source'] = 'discovery',
): WorldDefinition => ({
  name,
  address,
  source,
  allow: { domains: [], groups: [], emails: [] },
  writeTokenPaths: ['/**'],
  tokens: {},
});

describe('world address resolution (Go broker config.go WorldConfig)', () => {
  it('uses internalAddress when configured', () => {
    assert.equal(
      resolveWorldAddress({ name: 'team-a', namespace: 'ns', internalAddress: '10.0.0.5:7000' }),
      '10.0.0.5:7000',
    );
  });

  it('defaults to the Service DNS name on the Mark port', () => {
    assert.equal(
      resolveWorldAddress({ name: 'team-a', namespace: 'knowledge' }),
      'team-a.knowledge.svc.cluster.local:6309',
    );
  });

  it('refuses a world with neither', () => {
    assert.throws(() => resolveWorldAddress({ name: 'team-a' }), RangeError);
  });
});

describe('world registry', () => {
  it('lists configured worlds in config order, then discovered worlds by name', () => {
    const registry = new WorldRegistry([world('zeta', 'z:1', 'config'), world('alpha', 'a:1', 'config')]);
    registry.upsert(world('mid'));
    registry.upsert(world('beta'));
    assert.deepEqual(
      registry.list().map((w) => `${w.name}/${w.source}`),
      ['zeta/config', 'alpha/config', 'beta/discovery', 'mid/discovery'],
    );
  });

  it('adds, updates and removes discovered worlds, telling listeners', () => {
    const registry = new WorldRegistry();
    const changes: string[] = [];
    registry.onChange((c: WorldChange) => changes.push(`${c.type}:${c.world.name}@${c.world.address}`));
    assert.equal(registry.upsert(world('team-a', 'one:1')), true);
    assert.equal(registry.upsert(world('team-a', 'two:1')), true);
    assert.equal(registry.get('team-a')?.address, 'two:1');
    assert.equal(registry.remove('team-a'), true);
    assert.equal(registry.get('team-a'), undefined);
    assert.equal(registry.remove('team-a'), false);
    assert.deepEqual(changes, ['added:team-a@one:1', 'updated:team-a@two:1', 'removed:team-a@two:1']);
  });

  it('lets a configured world win over a discovered one of the same name', () => {
    const registry = new WorldRegistry([world('team-a', 'configured:1', 'config')]);
    const changes: string[] = [];
    registry.onChange((c) => changes.push(c.type));
    assert.equal(registry.upsert(world('team-a', 'discovered:1')), false);
    assert.equal(registry.get('team-a')?.address, 'configured:1');
    assert.equal(registry.remove('team-a'), false);
    assert.equal(registry.get('team-a')?.source, 'config');
    assert.deepEqual(changes, []);
    assert.equal(registry.list().length, 1);
  });

  it('refuses invalid and duplicate names', () => {
    assert.throws(() => new WorldRegistry([world('a', 'a:1', 'config'), world('a', 'b:1', 'config')]), RangeError);
    assert.throws(() => new WorldRegistry().upsert(world('Bad_Name')), RangeError);
  });

  it('stops telling a listener once it unsubscribed', () => {
    const registry = new WorldRegistry();
    let calls = 0;
    const unsubscribe = registry.onChange(() => (calls += 1));
    registry.upsert(world('one'));
    unsubscribe();
    registry.upsert(world('two'));
    assert.equal(calls, 1);
  });
});
