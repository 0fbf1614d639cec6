/**
 * Threat: a publisher blocks writes to a document it may not write. A write swaps the document's
 * pointer through a temp link; that link was named `<doc>.tmp` beside the document (Go
 * `swapCurrent`, /work/shared/reference/mark-protocol.md §3.1), and the swap unlinked any old one
 * first. A folder of that name cannot be unlinked, so a token covering only `/a.md.tmp/**` could
 * `PUBLISH /a.md.tmp/b.md`, and from then on every PUBLISH and APPEND of /a.md answered
 * server-error "internal error", for every token, until an operator removed the folder.
 *
 * Before the fix (checked by running this file against it, and by /tmp/store-fixes/t1.ts of the
 * store review), the squat was created and the owner's writes failed: both tests failed.
 *
 * A real world server over QUIC and its real file store.
 */
import assert from 'node:assert/strict';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startWorldFixture, text, type WorldFixture } from './world-fixture.ts';

describe('security: a folder named like a temp link does not block its document', () => {
  let world: WorldFixture;
  let owner: string;
  let squatter: string;
  let root: string;
  before(async () => {
    world = await startWorldFixture({
      tokens: [
        { label: 'owner', paths: ['/a.md', '/c.md'], operations: ['publish'] },
        { label: 'squatter', paths: ['/a.md.tmp/**'], operations: ['publish'] },
        { label: 'anywhere', paths: ['/**'], operations: ['publish'] },
      ],
    });
    owner = world.tokens.owner!;
    squatter = world.tokens.squatter!;
    root = join(world.dir, 'root');
  });
  after(() => world.close());

  it('a squat through the wire is refused and the owner keeps publishing and appending', async () => {
    assert.equal((await world.call('PUBLISH', '/a.md', { auth: owner }, '# A1\n')).status, 'created');
    const squat = await world.call('PUBLISH', '/a.md.tmp/b.md', { auth: squatter }, '# squat\n');
    assert.equal(squat.status, 'bad-request');
    assert.match(text(squat), /"\.md\.tmp" is reserved/);
    const published = await world.call('PUBLISH', '/a.md', { auth: owner }, '# A2\n');
    assert.equal(published.status, 'created', text(published));
    assert.equal(published.metadata.version, '2');
    const appended = await world.call('APPEND', '/a.md', { auth: owner, 'expected-version': '2' }, 'more\n');
    assert.equal(appended.status, 'created', text(appended));
    assert.equal(text(await world.call('FETCH', '/a.md')), '# A2\nmore\n');
  });

  it('a document path ending in .md.tmp is told it must end in .md, not that a folder name is reserved', async () => {
    const response = await world.call('PUBLISH', '/a.md.tmp', { auth: world.tokens.anywhere! }, '# not a doc\n');
    assert.equal(response.status, 'bad-request');
    assert.match(text(response), /publish path must end in \.md\n?$/);
    assert.doesNotMatch(text(response), /reserved/);
  });

  it('a folder already on disk (a store written by an older version or the Go server) blocks nothing', async () => {
    await mkdir(join(root, 'c.md.tmp'));
    await writeFile(join(root, 'c.md.tmp', 'b.md'), 'planted\n');
    for (const [i, body] of ['# C1\n', '# C2\n'].entries()) {
      const response = await world.call('PUBLISH', '/c.md', { auth: owner }, body);
      assert.equal(response.status, 'created', text(response));
      assert.equal(response.metadata.version, String(i + 1));
    }
    assert.equal(text(await world.call('FETCH', '/c.md')), '# C2\n');
    // The swaps left nothing behind: no temp link beside the document nor in its history.
    assert.deepEqual((await readdir(join(root, 'versions', 'c.md'))).sort(), ['v1', 'v2']);
    assert.deepEqual((await readdir(join(root, 'c.md.tmp'))).sort(), ['b.md']);
  });
});
