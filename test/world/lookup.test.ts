import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startWorldFixture, text, type WorldFixture } from './world-fixture.ts';

describe('LOOKUP in catalog mode (Mark SPEC §6.7; Go handler_lookup_test.go)', () => {
  let world: WorldFixture;
  let auth: string;
  before(async () => {
    world = await startWorldFixture();
    auth = world.tokens.writer!;
    await world.local(
      'PUBLISH',
      '/docs/auth.md',
      { auth, tags: 'auth, go', title: 'Auth design', importance: '0.9' },
      '# Something else\n',
    );
    await world.local('PUBLISH', '/docs/misc.md', { auth, tags: 'misc' }, '# Misc\n');
  });
  after(() => world.close());

  it('matches a tag exactly and shows importance with two decimals (40)', async () => {
    const response = await world.call('LOOKUP', '/', { query: 'auth' });
    assert.equal(response.metadata.matches, '1');
    assert.match(text(response), /\| \/docs\/auth\.md \| 0\.90 \| Auth design \| auth, go \|/);
    assert.doesNotMatch(text(response), /misc/);
  });

  const invalid: Array<[string, Record<string, string>, RegExp]> = [
    ['no metadata', {}, /query must be at least 2 characters/],
    ['an empty query', { query: '' }, /query must be at least 2 characters/],
    ['a one-letter query', { query: 'a' }, /query must be at least 2 characters/],
    [
      '33 distinct terms',
      { query: Array.from({ length: 33 }, (_, i) => `t${i}`).join(' ') },
      /query has too many terms: 33 > 32/,
    ],
    ['a non-numeric limit', { query: 'go', limit: 'zero' }, /invalid limit/],
    ['a zero limit', { query: 'go', limit: '0' }, /invalid limit/],
    ['a filter without =', { query: 'go', filter: 'project' }, /./],
    ['a bad date filter', { query: 'go', filter: 'modified-after=nope' }, /./],
    ['an unknown match mode', { query: 'go', match: 'fuzzy' }, /match must be "catalog" or "body", got "fuzzy"/],
  ];
  for (const [name, meta, message] of invalid) {
    it(`answers bad-request to ${name} (41)`, async () => {
      const response = await world.local('LOOKUP', '/', meta);
      assert.equal(response.status, 'bad-request');
      assert.match(text(response), message);
    });
  }

  it('accepts 32 distinct terms, also when each is repeated (41)', async () => {
    const terms = Array.from({ length: 32 }, (_, i) => `t${i}`);
    assert.equal((await world.local('LOOKUP', '/', { query: terms.join(' ') })).status, 'ok');
    assert.equal((await world.local('LOOKUP', '/', { query: [...terms, ...terms].join(' ') })).status, 'ok');
  });

  it('clamps a limit above 1000 instead of refusing it', async () => {
    assert.equal((await world.local('LOOKUP', '/', { query: 'auth', limit: '5000' })).status, 'ok');
  });

  it('answers not-found for a missing scope and ok with zero matches for no hits (43)', async () => {
    const missing = await world.local('LOOKUP', '/nope/', { query: 'go' });
    assert.equal(missing.status, 'not-found');
    assert.match(text(missing), /\/nope not found/);
    const none = await world.local('LOOKUP', '/', { query: 'kubernetes' });
    assert.deepEqual([none.status, none.metadata.matches], ['ok', '0']);
  });

  it('applies filters (42)', async () => {
    const tagged = await world.local('LOOKUP', '/', { query: 'auth', filter: 'tag=GO' });
    assert.equal(tagged.metadata.matches, '1');
    const other = await world.local('LOOKUP', '/', { query: 'auth', filter: 'author=fritz' });
    assert.equal(other.metadata.matches, '0');
    const future = await world.local('LOOKUP', '/', { query: 'auth', filter: 'modified-after=2030-01-01' });
    assert.equal(future.metadata.matches, '0');
  });

  it('echoes match only when the request carried it (48)', async () => {
    assert.equal((await world.local('LOOKUP', '/', { query: 'auth', match: 'catalog' })).metadata.match, 'catalog');
    assert.equal((await world.local('LOOKUP', '/', { query: 'auth' })).metadata.match, undefined);
  });
});

describe('LOOKUP ordering and catalog sync (Go catalog.better, handler_lookup_test.go)', () => {
  let world: WorldFixture;
  let auth: string;
  before(async () => {
    world = await startWorldFixture();
    auth = world.tokens.writer!;
  });
  after(() => world.close());

  it('orders equal scores by importance and honours the limit (44)', async () => {
    for (const [name, importance] of [
      ['c', '0.7'],
      ['a', '0.9'],
      ['b', '0.8'],
    ]) {
      await world.local('PUBLISH', `/go/${name}.md`, { auth, tags: 'go', importance: importance! }, `# ${name}\n`);
    }
    const response = await world.local('LOOKUP', '/go', { query: 'go', limit: '2' });
    assert.equal(response.metadata.matches, '2');
    assert.match(text(response), /\/go\/a\.md[\s\S]*\/go\/b\.md/);
    assert.doesNotMatch(text(response), /\/go\/c\.md/);
  });

  it('keeps the catalog current on publish, archive and append (46)', async () => {
    await world.local('PUBLISH', '/auth.md', { auth, tags: 'middleware,go' }, '# Auth Middleware\n');
    assert.match(text(await world.local('LOOKUP', '/', { query: 'middleware' })), /\| Auth Middleware \|/);
    await world.local('ARCHIVE', '/auth.md', { auth });
    assert.equal((await world.local('LOOKUP', '/', { query: 'middleware' })).metadata.matches, '0');
    await world.local('PUBLISH', '/rbac.md', { auth, tags: 'rbac,go', importance: '0.9' }, '# RBAC\n');
    await world.local('APPEND', '/rbac.md', { auth, 'expected-version': '1', agent: 'claude' }, '\nmore\n');
    assert.equal((await world.local('LOOKUP', '/', { query: 'rbac' })).metadata.matches, '1');
    const fetched = await world.local('FETCH', '/rbac.md');
    assert.equal(fetched.metadata.importance, '0.9');
    assert.equal(fetched.metadata.agent, 'claude');
  });

  it("matches everything with query '*', most important first (47)", async () => {
    await world.local('PUBLISH', '/star/hub.md', { auth, importance: '0.9' }, '# Hub\n');
    await world.local('PUBLISH', '/star/note.md', { auth, importance: '0.3' }, '# Note\n');
    const response = await world.call('LOOKUP', '/star', { query: '*' });
    assert.deepEqual([response.status, response.metadata.matches], ['ok', '2']);
    assert.ok(text(response).indexOf('/star/hub.md') < text(response).indexOf('/star/note.md'));
  });

  it('rebuilds the catalog from the store when the world restarts', async () => {
    const store = world.server.world.context.store;
    assert.ok((await store.current('/rbac.md')) !== null);
    assert.ok(world.server.world.context.catalog.size >= 4);
  });
});
