/**
 * Threat: a writer squats or plants files in the store's own history folders.
 * A document's history lives in `versions/<name>/` beside it (Mark SPEC §9.3,
 * /work/shared/reference/mark-protocol.md §3.1), and a request path that names
 * a `versions` segment reaches straight into that layout.
 *
 * Both attacks below succeeded before writes to such paths were refused
 * (checked by running this file against the server without the check):
 * `PUBLISH /docs/versions/b.md` was created, and from then on every
 * `PUBLISH /docs/b.md` answered server-error "internal error" (its history
 * folder was a file) until an operator repaired the disk; and
 * `PUBLISH /docs/versions/a.md/evil.md` wrote inside the history of the
 * existing /docs/a.md, hidden from LIST but served by FETCH and LOOKUP.
 * The Go server accepts both writes too (its store has no such check).
 *
 * A real world server over QUIC.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startWorldFixture, text, type WorldFixture } from '../world/world-fixture.ts';

describe('security: writes into a history folder are refused', () => {
  let world: WorldFixture;
  let auth: string;
  before(async () => {
    world = await startWorldFixture();
    auth = world.tokens.writer!;
    assert.equal((await world.call('PUBLISH', '/docs/a.md', { auth }, '# A\n')).status, 'created');
  });
  after(() => world.close());

  it('a squat on a future document history is refused and the document can still be published', async () => {
    const squat = await world.call('PUBLISH', '/docs/versions/b.md', { auth }, '# squat\n');
    assert.equal(squat.status, 'bad-request');
    assert.match(text(squat), /"versions" is reserved for document history/);
    assert.match(text(squat), /another folder name/);
    assert.equal((await world.call('PUBLISH', '/docs/b.md', { auth }, '# B\n')).status, 'created');
    assert.equal((await world.call('PUBLISH', '/docs/b.md', { auth }, '# B2\n')).status, 'created');
  });

  it('a file planted inside an existing history is refused and nothing is served from there', async () => {
    const planted = await world.call('PUBLISH', '/docs/versions/a.md/evil.md', { auth }, '# Evil\n');
    assert.equal(planted.status, 'bad-request');
    assert.equal((await world.call('FETCH', '/docs/versions/a.md/evil.md')).status, 'not-found');
    const found = await world.call('LOOKUP', '/', { query: 'evil' });
    assert.equal(found.metadata.matches, '0');
  });

  it('refuses before auth, as the reserved hash path is, and for every write verb', async () => {
    for (const [verb, metadata] of [
      ['PUBLISH', {}],
      ['APPEND', { 'expected-version': '1' }],
      ['ARCHIVE', {}],
    ] as const) {
      const anonymous = await world.call(verb, '/versions/x.md', metadata, '# x\n');
      assert.equal(anonymous.status, 'bad-request', `${verb} without a token`);
      const deep = await world.call(verb, '/docs/versions/a.md', { ...metadata, auth }, '# x\n');
      assert.equal(deep.status, 'bad-request', `${verb} with a token`);
    }
  });

  it('a name that only contains the word is an ordinary path', async () => {
    assert.equal((await world.call('PUBLISH', '/docs/versions.md', { auth }, '# V\n')).status, 'created');
    assert.equal((await world.call('PUBLISH', '/docs/old-versions/v.md', { auth }, '# V\n')).status, 'created');
  });
});
