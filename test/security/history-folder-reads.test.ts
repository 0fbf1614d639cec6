/**
 * Threat: a caller without a read token learns whether a read-protected
 * document exists by reading its history folder instead of the document. A
 * pattern like `/docs/*.md` protects /docs/a.md but not /docs/versions/a.md,
 * the folder beside it that holds its versions (Mark SPEC §9.3).
 *
 * The attack below succeeded before reads of a path with a `versions` segment
 * were answered not-found (checked by running this file against the server
 * without the check): FETCH /docs/a.md answered `unauthorized`, but FETCH
 * /docs/versions/a.md answered `ok` with an empty listing while FETCH
 * /docs/versions/zz.md answered `not-found`; LIST and LOOKUP of /docs/versions/
 * likewise told a folder holding documents from one holding none. The Go
 * server answers the same way (its FETCH lists the history folder as a
 * directory); that is an accident of its layout, not a defined behaviour.
 *
 * A real world server over QUIC.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startWorldFixture, text, type WorldFixture } from '../world/world-fixture.ts';

describe('security: history folders do not reveal protected documents', () => {
  let world: WorldFixture;
  before(async () => {
    world = await startWorldFixture({
      tokens: [
        { label: 'writer', paths: ['/**'], operations: ['publish'] },
        { label: 'reader', paths: ['/docs/*.md'], operations: ['read'] },
      ],
    });
    const auth = world.tokens.writer!;
    assert.equal((await world.call('PUBLISH', '/docs/a.md', { auth }, '# A\n')).status, 'created');
    assert.equal((await world.call('PUBLISH', '/docs/a.md', { auth }, '# A2\n')).status, 'created');
    assert.equal((await world.call('FETCH', '/docs/a.md')).status, 'unauthorized');
  });
  after(() => world.close());

  /** Status and body with the path written as `<path>`, so two answers about different paths compare. */
  async function answer(verb: 'FETCH' | 'LIST' | 'VERSIONS' | 'LOOKUP', path: string, metadata = {}) {
    const response = await world.call(verb, path, metadata);
    return { status: response.status, body: text(response).replaceAll(path.replace(/\/$/, ''), '<path>') };
  }

  it('FETCH of an existing and a missing document history answer alike: not-found', async () => {
    const existing = await answer('FETCH', '/docs/versions/a.md');
    assert.deepEqual(existing, await answer('FETCH', '/docs/versions/zz.md'));
    assert.equal(existing.status, 'not-found');
    assert.deepEqual(await answer('FETCH', '/docs/versions/a.md/v1'), await answer('FETCH', '/docs/versions/zz.md/v1'));
  });

  it('LIST, VERSIONS and LOOKUP of a history folder do not tell a used folder from an unused one', async () => {
    for (const [verb, metadata] of [
      ['LIST', {}],
      ['LOOKUP', { query: 'a' }],
    ] as const) {
      const used = await answer(verb, '/docs/versions/', metadata);
      assert.deepEqual(used, await answer(verb, '/empty/versions/', metadata), verb);
      assert.equal(used.status, 'not-found', verb);
    }
    assert.deepEqual(await answer('VERSIONS', '/docs/versions/a.md'), await answer('VERSIONS', '/docs/versions/zz.md'));
  });

  it('the document itself still answers its reader', async () => {
    const read = await world.call('FETCH', '/docs/a.md', { auth: world.tokens.reader! });
    assert.equal(read.status, 'ok');
    assert.equal(text(read), '# A2\n');
  });
});
