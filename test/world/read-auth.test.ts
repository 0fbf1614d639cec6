import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { startWorldFixture, text, type WorldFixture } from './world-fixture.ts';

const secretBody = '# Secret plans\n\nThe auth rollout date.\n';
const sha = (s: string) => `sha256-${createHash('sha256').update(s).digest('hex')}`;

/**
 * Read-auth leakage (Go `auth.AuthorizeRead`, `authorize_read_test.go`): documents under a
 * read-protected path never show to a caller without the right token, not by
 * path, title or count, through LOOKUP, LIST, FETCH by hash or VERSIONS.
 */
describe('read-auth leakage', () => {
  let world: WorldFixture;
  before(async () => {
    world = await startWorldFixture({
      tokens: [
        { label: 'writer', paths: ['/**'], operations: ['publish'] },
        { label: 'reader', paths: ['/private/**', '/team/'], operations: ['read'] },
        { label: 'expired', paths: ['/private/**'], operations: ['read'], expires: '2020-01-01T00:00:00Z' },
      ],
    });
    const auth = world.tokens.writer!;
    await world.local('PUBLISH', '/public/doc.md', { auth, tags: 'auth' }, '# Public doc\n');
    await world.local('PUBLISH', '/private/secret.md', { auth, tags: 'auth', title: 'Secret' }, secretBody);
    await world.local('PUBLISH', '/private/deeper/more.md', { auth, tags: 'auth' }, '# More secret\n');
    await world.local('PUBLISH', '/team/index.md', { auth }, '# Team\n');
  });
  after(() => world.close());

  it('hides protected rows from LOOKUP, counts included (45)', async () => {
    const anonymous = await world.call('LOOKUP', '/', { query: 'auth' });
    assert.equal(anonymous.metadata.matches, '1');
    assert.doesNotMatch(text(anonymous), /private|Secret|More secret/);
    const reader = await world.call('LOOKUP', '/', { query: 'auth', auth: world.tokens.reader! });
    assert.equal(reader.metadata.matches, '3');
  });

  it('does not let hidden rows displace visible ones under a limit', async () => {
    const limited = await world.local('LOOKUP', '/', { query: 'auth', limit: '1' });
    assert.match(text(limited), /\/public\/doc\.md/);
  });

  it('hides protected entries from LIST and refuses the protected directory itself', async () => {
    const root = await world.call('LIST', '/');
    assert.doesNotMatch(text(root), /private/);
    assert.match(text(root), /public/);
    assert.equal((await world.call('LIST', '/private')).status, 'unauthorized');
    const reader = await world.call('LIST', '/', { auth: world.tokens.reader! });
    assert.match(text(reader), /private/);
  });

  it('does not serve protected content by hash, nor confirm it exists', async () => {
    const anonymous = await world.call('FETCH', `/${sha(secretBody)}`);
    const unknown = await world.call('FETCH', `/sha256-${'f'.repeat(64)}`);
    assert.equal(anonymous.status, 'not-found');
    assert.equal(text(anonymous).replace(/[0-9a-f]{64}/, 'H'), text(unknown).replace(/[0-9a-f]{64}/, 'H'));
    assert.doesNotMatch(text(anonymous), /Secret|private/);
    const reader = await world.call('FETCH', `/${sha(secretBody)}`, { auth: world.tokens.reader! });
    assert.equal(text(reader), secretBody);
  });

  it('refuses FETCH, pinned versions and VERSIONS on protected paths (50)', async () => {
    assert.equal((await world.call('FETCH', '/private/secret.md')).status, 'unauthorized');
    assert.equal((await world.call('FETCH', '/private/secret.md/v1')).status, 'unauthorized');
    assert.equal((await world.call('VERSIONS', '/private/secret.md')).status, 'unauthorized');
    assert.equal((await world.call('FETCH', '/private/secret.md', { auth: 'unknown-token' })).status, 'unauthorized');
    assert.equal(
      (await world.call('FETCH', '/private/secret.md', { auth: world.tokens.writer! })).status,
      'not-permitted',
    );
    assert.equal(
      (await world.call('FETCH', '/private/secret.md', { auth: world.tokens.expired! })).status,
      'unauthorized',
    );
    assert.equal((await world.call('FETCH', '/private/secret.md', { auth: world.tokens.reader! })).status, 'ok');
  });

  it('keeps public paths public even with a bad token, and grants /team through the /team/ pattern (50)', async () => {
    assert.equal((await world.call('FETCH', '/public/doc.md', { auth: 'garbage' })).status, 'ok');
    assert.equal((await world.call('FETCH', '/team')).status, 'unauthorized');
    assert.equal((await world.call('FETCH', '/team', { auth: world.tokens.reader! })).status, 'ok');
  });

  it('always serves the agent manifest', async () => {
    assert.equal((await world.call('FETCH', '/.well-known/agent-manifest.md')).status, 'ok');
  });
});
