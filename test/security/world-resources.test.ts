/**
 * Threat: probing and exhausting a world directly over QUIC. A caller without a
 * read token must not learn folder names inside a protected tree.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startWorldFixture, text, type WorldFixture } from '../world/world-fixture.ts';

describe('security: world LOOKUP inside a protected tree', () => {
  let world: WorldFixture;
  before(async () => {
    world = await startWorldFixture({
      tokens: [
        { label: 'writer', paths: ['/**'], operations: ['publish'] },
        { label: 'reader', paths: ['/private/**'], operations: ['read'] },
      ],
    });
    await world.local('PUBLISH', '/private/plans/q3.md', { auth: world.tokens.writer! }, '# Q3\n');
  });
  after(() => world.close());

  it('answers an existing and a missing protected folder alike', async () => {
    const existing = await world.call('LOOKUP', '/private/plans', { query: 'q3' });
    const missing = await world.call('LOOKUP', '/private/nothing-here', { query: 'q3' });
    assert.equal(existing.status, missing.status);
    assert.equal(existing.status, 'unauthorized');
    assert.equal(text(existing), text(missing));
  });

  it('still answers a reader, and a missing folder outside the tree as not-found', async () => {
    const reader = await world.call('LOOKUP', '/private/plans', { query: 'q3', auth: world.tokens.reader! });
    assert.equal(reader.status, 'ok');
    assert.equal(reader.metadata.matches, '1');
    assert.equal((await world.call('LOOKUP', '/elsewhere', { query: 'q3' })).status, 'not-found');
  });
});
