/**
 * Threat: a caller makes a world answer server errors and fill its error log
 * at will. Mark allows request paths up to 4087 bytes with no bound on one
 * segment, but a file name on the world's disk is at most NAME_MAX, 255 bytes
 * of UTF-8 on Linux filesystems, and a longer one fails with ENAMETOOLONG.
 *
 * The attack below succeeded before that error was read as "nothing there"
 * and writes checked the bound (checked by running this file against the
 * server without them): FETCH, LIST, LOOKUP and PUBLISH of a path with a
 * 300-byte segment each answered server-error "internal error" and logged at
 * error level, once per request, while VERSIONS and ARCHIVE answered
 * not-found.
 *
 * A real world server over QUIC, with a logger that records error-level lines.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startWorldFixture, text, type WorldFixture } from '../world/world-fixture.ts';

const long = 'a'.repeat(300);
// 2-byte characters: 128 of them are 256 bytes though only 128 UTF-16 units.
const longInBytes = 'é'.repeat(128);

describe('security: a path segment longer than the disk allows', () => {
  let world: WorldFixture;
  let auth: string;
  const errors: string[] = [];
  before(async () => {
    const record = () => {};
    world = await startWorldFixture({
      world: { log: { info: record, warn: record, error: (_fields, message) => errors.push(message) } },
    });
    auth = world.tokens.writer!;
  });
  after(() => world.close());

  it('reads answer not-found and log no error', async () => {
    for (const [verb, path, metadata] of [
      ['FETCH', `/${long}.md`, {}],
      ['FETCH', `/${long}/x.md`, {}],
      ['FETCH', `/docs/${longInBytes}.md`, {}],
      ['LIST', `/${long}/`, {}],
      ['LOOKUP', `/${long}/`, { query: 'aa' }],
      ['VERSIONS', `/${long}.md`, {}],
    ] as const) {
      const response = await world.call(verb, path, metadata);
      assert.equal(response.status, 'not-found', `${verb} ${path.slice(0, 12)}…`);
    }
    assert.deepEqual(errors, []);
  });

  it('writes answer bad-request naming the bound, before auth, and log no error', async () => {
    for (const [verb, path, metadata] of [
      ['PUBLISH', `/${long}.md`, { auth }],
      ['PUBLISH', `/${long}/x.md`, { auth }],
      ['PUBLISH', `/docs/${longInBytes}.md`, {}],
      ['APPEND', `/${long}.md`, { auth, 'expected-version': '1' }],
      ['ARCHIVE', `/${long}.md`, { auth }],
    ] as const) {
      const response = await world.call(verb, path, metadata, '# long\n');
      assert.equal(response.status, 'bad-request', `${verb} ${path.slice(0, 12)}…`);
      assert.match(text(response), /longer than 255 bytes/);
    }
    assert.deepEqual(errors, []);
  });

  it('a document name the write can hold is published and read back', async () => {
    // The Go server's temporary pointer is `<name>.tmp` beside the document, so a document name keeps 4 bytes spare.
    const longest = `${'b'.repeat(248)}.md`;
    assert.equal((await world.call('PUBLISH', `/${longest}`, { auth }, '# ok\n')).status, 'created');
    assert.equal(text(await world.call('FETCH', `/${longest}`)), '# ok\n');
    const tooLong = `${'b'.repeat(249)}.md`;
    const refused = await world.call('PUBLISH', `/${tooLong}`, { auth }, '# no\n');
    assert.equal(refused.status, 'bad-request');
    assert.match(text(refused), /document name .* 251 bytes/);
    assert.deepEqual(errors, []);
  });
});
