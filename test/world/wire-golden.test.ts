import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { encodeRequest } from '../../src/protocol/request.ts';
import type { Verb } from '../../src/protocol/verbs.ts';
import { startWorldFixture, type WorldFixture } from './world-fixture.ts';

const goldenDir = new URL('../golden/mark/', import.meta.url);
const golden = (name: string) => readFile(new URL(`${name}.golden`, goldenDir), 'utf8');

/**
 * The Go reference's golden scenario (storetest/wiregolden.go; test/golden/mark), in order, on
 * an empty store, over a real QUIC connection, compared byte for byte.
 */
describe('wire goldens over QUIC (test/golden/mark)', () => {
  let world: WorldFixture;
  let auth: string;
  before(async () => {
    world = await startWorldFixture();
    auth = world.tokens.writer!;
  });
  after(() => world.close());

  const send = async (verb: Verb, path: string, metadata: Record<string, string>, body = '') =>
    Buffer.from(await world.raw(encodeRequest({ verb, path, metadata, body: Buffer.from(body) }))).toString();

  const scenario: Array<[string, () => Promise<string>]> = [
    [
      '01-publish-created',
      () =>
        send(
          'PUBLISH',
          '/docs/a.md',
          { auth, 'expected-version': '0', importance: '0.7', tags: 'alpha, wire', type: 'Note' },
          '# Alpha\n\nFirst body.\n',
        ),
    ],
    [
      '02-publish-second',
      () =>
        send(
          'PUBLISH',
          '/docs/a.md',
          { auth, 'expected-version': '1', importance: '0.7', tags: 'alpha, wire', type: 'Note' },
          '# Alpha\n\nSecond body.\n\n## Details\n\nSee [beta](b.md).\n',
        ),
    ],
    [
      '03-publish-conflict',
      () =>
        send(
          'PUBLISH',
          '/docs/a.md',
          { auth, 'expected-version': '1', importance: '0.7', tags: 'alpha, wire', type: 'Note' },
          '# Alpha\n\nThird.\n',
        ),
    ],
    [
      '04-append-created',
      () => send('APPEND', '/docs/a.md', { auth, 'expected-version': '2' }, '\n## Appended\n\nMore.\n'),
    ],
  ];
  for (const [name, run] of scenario) {
    it(`answers ${name} byte for byte`, async () => assert.equal(await run(), await golden(name)));
  }

  it('sets up case 5 (beta and a path with a space)', async () => {
    assert.match(
      await send(
        'PUBLISH',
        '/docs/b.md',
        { auth, 'expected-version': '0', tags: 'beta', importance: '0.4' },
        '# Beta | piped\n\nBody of beta.\n',
      ),
      /status: created/,
    );
    assert.match(
      await send('PUBLISH', '/docs/sub/c d.md', { auth, 'expected-version': '0' }, '# Gamma\n'),
      /status: created/,
    );
  });

  const reads: Array<[string, () => Promise<string>]> = [
    ['06-fetch-current', () => send('FETCH', '/docs/a.md', {})],
    ['07-fetch-version', () => send('FETCH', '/docs/a.md/v1', {})],
    ['08-fetch-not-found', () => send('FETCH', '/docs/missing.md', {})],
    ['09-list', () => send('LIST', '/docs', {})],
    ['10-list-page', () => send('LIST', '/docs', { 'page-size': '1' })],
    ['11-list-not-found', () => send('LIST', '/nowhere', {})],
    ['12-versions', () => send('VERSIONS', '/docs/a.md', {})],
    ['13-lookup-catalog', () => send('LOOKUP', '/', { query: 'alpha beta' })],
    ['14a-lookup-body', () => send('LOOKUP', '/', { query: 'appended', match: 'body' })],
    ['14b-lookup-empty', () => send('LOOKUP', '/', { query: 'zzznothing' })],
    ['14c-archive', () => send('ARCHIVE', '/docs/b.md', { auth })],
    ['14d-fetch-archived', () => send('FETCH', '/docs/b.md', {})],
  ];
  for (const [name, run] of reads) {
    it(`answers ${name} byte for byte`, async () => assert.equal(await run(), await golden(name)));
  }

  it('follows the LIST cursor to the next page', async () => {
    const next = await send('LIST', '/docs', { 'page-size': '1', cursor: 'AQAABS9kb2NzYS5tZA' });
    assert.match(next, /entries: "1"/);
    assert.match(next, /\(sub\/\)\n/);
    assert.match(next, /complete: "true"/);
  });
});
