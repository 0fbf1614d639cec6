import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createHash } from 'node:crypto';
import { encodeRequest } from '../../src/protocol/request.ts';
import { StoreError } from '../../src/world/store/index.ts';
import { startWorldFixture, text, type WorldFixture } from './world-fixture.ts';

const sha256 = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex');

async function rawStatus(world: WorldFixture, bytes: Uint8Array | string): Promise<string> {
  const response = await world.server.world.respond({ bytes: typeof bytes === 'string' ? Buffer.from(bytes) : bytes });
  return response.status;
}

describe('framing and parse errors (Mark SPEC §4, §11.3; Go storetest/handler_conformance.go)', () => {
  let world: WorldFixture;
  before(async () => (world = await startWorldFixture()));
  after(() => world.close());

  const badRequests: Array<[string, string]> = [
    ['a line without a path (15)', 'FETCH\n'],
    ['an unknown verb (16)', 'DELETE /a.md\n'],
    ['an empty verb (17)', ' /a.md\n'],
    ['a relative path (18)', 'FETCH a.md\n'],
    ['an unclosed block (19)', 'FETCH /a.md\n---\nkey: v\n'],
    ['a block that is not a map (20)', 'FETCH /a.md\n---\n- a\n- b\n---\n'],
  ];
  for (const [name, input] of badRequests) {
    it(`answers bad-request "bad request" to ${name}`, async () => {
      const response = await world.server.world.respond({ bytes: Buffer.from(input) });
      assert.equal(response.status, 'bad-request');
      assert.equal(text(response), '\n# Bad request\n\nbad request\n');
    });
  }

  it('answers server-error "could not read request" to an oversized body (21) and an empty request (22)', async () => {
    const big = Buffer.concat([Buffer.from('PUBLISH /a.md\n'), Buffer.alloc(1_048_577, 0x61)]);
    for (const bytes of [big, new Uint8Array(0)]) {
      const response = await world.server.world.respond({ bytes });
      assert.equal(response.status, 'server-error');
      assert.equal(text(response), '\n# Server error\n\ncould not read request\n');
    }
  });

  it('answers server-error to a request the listener cut off at its size bound', async () => {
    const response = await world.server.world.respond({ bytes: Buffer.from('PUBLISH /a.md\n'), truncated: true });
    assert.equal(response.status, 'server-error');
  });

  it('refuses .. before auth: FETCH is not-found and PUBLISH never creates (23)', async () => {
    assert.equal(await rawStatus(world, 'FETCH /../../etc/passwd\n'), 'not-found');
    const publish = encodeRequest({
      verb: 'PUBLISH',
      path: '/../../etc/passwd',
      metadata: { auth: world.tokens.writer! },
      body: Buffer.from('# x\n'),
    });
    assert.equal(await rawStatus(world, publish), 'not-found');
    assert.equal(await rawStatus(world, 'FETCH /allowed/../secret.md\n'), 'not-found');
  });

  it('answers FETCH /health without auth (24)', async () => {
    const response = await world.call('FETCH', '/health');
    assert.equal(response.status, 'ok');
    assert.equal(text(response), '# Health Check\n\nServer is healthy.\n');
  });

  it('refuses WATCH in process, where no stream can carry it (over QUIC it streams: test/world/watch.test.ts)', async () => {
    const response = await world.local('WATCH', '/');
    assert.equal(response.status, 'bad-request');
    assert.match(text(response), /WATCH needs a stream of its own/);
  });
});

describe('FETCH, hashes and conditionals (Mark SPEC §6.1, §10, §12; Go storetest/handler_conformance.go)', () => {
  let world: WorldFixture;
  let etag: string;
  let modified: string;
  before(async () => {
    world = await startWorldFixture();
    await world.server.world.context.store.publish('/hello.md', Buffer.from('# Hello World\n'), {}, {});
    const response = await world.call('FETCH', '/hello.md');
    etag = response.metadata.etag!;
    modified = response.metadata.modified!;
  });
  after(() => world.close());

  it('computes the etag over the stored bytes and the content hash over the body (25)', async () => {
    assert.equal(etag, sha256('---\nversion: 1\narchived: false\n---\n# Hello World\n'));
    const response = await world.call('FETCH', '/hello.md');
    assert.equal(response.metadata['content-hash'], `sha256-${sha256('# Hello World\n')}`);
  });

  it('serves a document by its content hash and misses an unknown hash (26)', async () => {
    const byHash = await world.call('FETCH', `/sha256-${sha256('# Hello World\n')}`);
    assert.equal(byHash.status, 'ok');
    assert.equal(text(byHash), '# Hello World\n');
    const miss = await world.call('FETCH', `/sha256-${'0'.repeat(64)}`);
    assert.equal(miss.status, 'not-found');
    assert.match(text(miss), /content not found for hash sha256-0{64}/);
  });

  it('honours if-none-match (27) and if-modified-since (28)', async () => {
    const same = await world.call('FETCH', '/hello.md', { 'if-none-match': etag });
    assert.equal(same.status, 'not-modified');
    assert.equal(same.body.length, 0);
    assert.equal((await world.call('FETCH', '/hello.md', { 'if-none-match': 'stale-etag' })).status, 'ok');
    assert.equal((await world.call('FETCH', '/hello.md', { 'if-modified-since': modified })).status, 'not-modified');
    assert.equal(
      (await world.call('FETCH', '/hello.md', { 'if-modified-since': '2000-01-01T00:00:00Z' })).status,
      'ok',
    );
    assert.equal((await world.call('FETCH', '/hello.md', { 'if-modified-since': 'not a date' })).status, 'ok');
  });

  it('changes the etag on a metadata-only write but keeps the content hash (29)', async () => {
    const before = await world.call('FETCH', '/hello.md');
    await world.server.world.context.store.publish(
      '/hello.md',
      Buffer.from('# Hello World\n'),
      { tags: 'changed' },
      {},
    );
    const after = await world.call('FETCH', '/hello.md', { 'if-none-match': etag });
    assert.equal(after.status, 'ok');
    assert.equal(after.metadata.version, '2');
    assert.notEqual(after.metadata.etag, etag);
    assert.equal(after.metadata['content-hash'], before.metadata['content-hash']);
  });

  it('ignores a flat file without history (30)', async () => {
    await writeFile(join(world.dir, 'root', 'flat.md'), '# Flat\n');
    assert.equal((await world.call('FETCH', '/flat.md')).status, 'not-found');
    assert.doesNotMatch(text(await world.call('LIST', '/')), /flat\.md/);
  });

  it('lists a directory on FETCH and treats /vN under a directory as a path (31)', async () => {
    const auth = world.tokens.writer!;
    assert.equal((await world.call('PUBLISH', '/api/v2/doc.md', { auth }, '# Doc\n')).status, 'created');
    const listing = await world.call('FETCH', '/api/v2');
    assert.equal(listing.status, 'ok');
    assert.match(text(listing), /\[doc\.md\]\(doc\.md\)/);
    assert.equal(listing.metadata.etag, sha256(listing.body));
    assert.equal(
      (await world.call('FETCH', '/api/v2', { 'if-none-match': listing.metadata.etag! })).status,
      'not-modified',
    );
    assert.equal((await world.call('FETCH', '/api/v2/doc.md/v1')).status, 'ok');
    assert.equal((await world.call('FETCH', '/api/v9')).status, 'not-found');
  });

  it('reads include-archived on a directory FETCH as Go does: "true" includes, anything else is ignored', async () => {
    // handler.go handleFetchDirectory: `includeArchived := req.Metadata["include-archived"] == "true"`,
    // never an error there (only LIST refuses a value other than true or false).
    const auth = world.tokens.writer!;
    await world.call('PUBLISH', '/shelf/live.md', { auth }, '# Live\n');
    await world.call('PUBLISH', '/shelf/gone.md', { auth }, '# Gone\n');
    assert.equal((await world.call('ARCHIVE', '/shelf/gone.md', { auth })).status, 'ok');
    const withArchived = await world.call('FETCH', '/shelf', { 'include-archived': 'true' });
    assert.equal(withArchived.status, 'ok');
    assert.match(text(withArchived), /gone\.md/);
    for (const loose of ['yes', 'True', '1', '']) {
      const listing = await world.call('FETCH', '/shelf', { 'include-archived': loose });
      assert.equal(listing.status, 'ok', loose);
      assert.match(text(listing), /live\.md/, loose);
      assert.doesNotMatch(text(listing), /gone\.md/, loose);
    }
  });

  it('serves a directory index.md when it is live', async () => {
    const auth = world.tokens.writer!;
    await world.call('PUBLISH', '/guide/index.md', { auth }, '# Guide\n');
    assert.equal(text(await world.call('FETCH', '/guide')), '# Guide\n');
  });

  it('serves a generated agent manifest until one is published', async () => {
    const response = await world.call('FETCH', '/.well-known/agent-manifest.md');
    assert.equal(response.status, 'ok');
    assert.match(text(response), /## Capabilities/);
  });
});

describe('write rules (Mark SPEC §6.4-6.6; Go storetest/handler_conformance.go)', () => {
  let world: WorldFixture;
  let auth: string;
  before(async () => {
    world = await startWorldFixture({
      tokens: [
        { label: 'writer', paths: ['/**'], operations: ['publish'] },
        { label: 'docs', paths: ['/docs/*'], operations: ['publish'] },
        // Read-protects /docs/** only, so the other cases here stay public.
        { label: 'reader', paths: ['/docs/**'], operations: ['read'] },
      ],
    });
    auth = world.tokens.writer!;
  });
  after(() => world.close());

  it('refuses a document beneath a document (32)', async () => {
    assert.equal((await world.local('PUBLISH', '/a.md', { auth }, '# A\n')).status, 'created');
    assert.equal(
      (await world.local('PUBLISH', '/a.md/b.md', { auth, 'expected-version': '0' }, '# B\n')).status,
      'bad-request',
    );
  });

  it('answers an identical republish with ok and no new version (33)', async () => {
    await world.local('PUBLISH', '/same.md', { auth, type: 'Document' }, '# Same\n');
    const again = await world.local('PUBLISH', '/same.md', { auth, type: 'Document' }, '# Same\n');
    assert.equal(again.status, 'ok');
    assert.equal(again.metadata.version, '1');
  });

  it('checks expected-version (34) and rejects malformed ones (35)', async () => {
    await world.local('PUBLISH', '/ev.md', { auth }, '# 1\n');
    await world.local('PUBLISH', '/ev.md', { auth }, '# 2\n');
    const stale = await world.local('PUBLISH', '/ev.md', { auth, 'expected-version': '1' }, '# 3\n');
    assert.equal(stale.status, 'conflict');
    assert.equal(stale.metadata['server-version'], '2');
    const createOnly = await world.local('PUBLISH', '/ev.md', { auth, 'expected-version': '0' }, '# 3\n');
    assert.equal(createOnly.status, 'conflict');
    assert.match(text(createOnly), /A document already exists at this path \(version 2\)/);
    assert.equal(
      (await world.local('PUBLISH', '/ev.md', { auth, 'expected-version': '2' }, '# 3\n')).status,
      'created',
    );
    for (const bad of ['abc', '-1', '1.5']) {
      const response = await world.local('PUBLISH', '/ev.md', { auth, 'expected-version': bad }, '# 4\n');
      assert.equal(response.status, 'bad-request', bad);
      assert.match(text(response), /invalid expected-version/);
    }
  });

  it('reads expected-version as Go does: strconv.Atoi, and "" as absent', async () => {
    // handler.go handlePublish/handleAppend: `ev != ""` then strconv.Atoi (a sign is allowed).
    await world.local('PUBLISH', '/atoi.md', { auth }, '# 1\n');
    const plusOne = await world.local('PUBLISH', '/atoi.md', { auth, 'expected-version': '+1' }, '# 2\n');
    assert.deepEqual([plusOne.status, plusOne.metadata.version], ['created', '2']);
    const minusZero = await world.local('PUBLISH', '/atoi-new.md', { auth, 'expected-version': '-0' }, '# new\n');
    assert.deepEqual([minusZero.status, minusZero.metadata.version], ['created', '1']);
    const minusZeroAgain = await world.local('PUBLISH', '/atoi-new.md', { auth, 'expected-version': '-0' }, '# 2\n');
    assert.equal(minusZeroAgain.status, 'conflict', 'create-only on an existing document');
    const empty = await world.local('PUBLISH', '/atoi.md', { auth, 'expected-version': '' }, '# 3\n');
    assert.deepEqual([empty.status, empty.metadata.version], ['created', '3']);
    // Beyond 2^53 (9007199254740992 and up) a version is not held exactly: refused, where Go would answer conflict.
    for (const bad of [
      ' 1',
      '1 ',
      '0x1',
      '1_0',
      '9223372036854775808',
      '-9223372036854775809',
      '+',
      '--1',
      '9007199254740992',
    ]) {
      const response = await world.local('PUBLISH', '/atoi.md', { auth, 'expected-version': bad }, '# 4\n');
      assert.deepEqual(
        [response.status, text(response).includes('invalid expected-version')],
        ['bad-request', true],
        bad,
      );
    }
    const appendPlus = await world.local('APPEND', '/atoi.md', { auth, 'expected-version': '+3' }, 'more\n');
    assert.deepEqual([appendPlus.status, appendPlus.metadata.version], ['created', '4']);
    assert.match(
      text(await world.local('APPEND', '/atoi.md', { auth, 'expected-version': '' }, 'x')),
      /APPEND requires expected-version metadata/,
    );
    assert.match(
      text(await world.local('APPEND', '/atoi.md', { auth, 'expected-version': '-0' }, 'x')),
      /invalid expected-version for APPEND \(must be >= 1\)/,
    );
  });

  it('enforces the document contract (36)', async () => {
    assert.match(text(await world.local('PUBLISH', '/img.png', { auth }, 'x')), /publish path must end in \.md/);
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0xff, 0x00]);
    assert.match(text(await world.local('PUBLISH', '/sneaky.md', { auth }, png)), /valid UTF-8/);
    assert.equal((await world.local('PUBLISH', '/notes.txt', { auth }, '')).status, 'bad-request');
    assert.equal(
      (await world.local('APPEND', '/img.png', { auth, 'expected-version': '1' }, 'x')).status,
      'bad-request',
    );
  });

  it('refuses metadata it reserves or cannot store', async () => {
    assert.match(
      text(await world.local('PUBLISH', '/m.md', { auth, version: '9' }, '# M\n')),
      /metadata key "version" is reserved/,
    );
    assert.match(
      text(await world.local('PUBLISH', '/m.md', { auth, Bad_Key: 'x' }, '# M\n')),
      /contains invalid characters/,
    );
    assert.match(
      text(await world.local('PUBLISH', '/m.md', { auth, big: 'x'.repeat(1100) }, '# M\n')),
      /metadata too large/,
    );
    assert.equal((await world.local('PUBLISH', '/m.md', { auth, retention: '0' }, '# M\n')).status, 'bad-request');
  });

  it('authenticates and authorises writes (37)', async () => {
    assert.equal((await world.local('PUBLISH', '/x.md', {}, '# X\n')).status, 'unauthorized');
    assert.equal((await world.local('PUBLISH', '/x.md', { auth: 'wrong-secret' }, '# X\n')).status, 'unauthorized');
    const outside = await world.local('PUBLISH', '/private/secret.md', { auth: world.tokens.docs! }, '# S\n');
    assert.equal(outside.status, 'not-permitted');
    assert.match(text(outside), /insufficient permissions/);
    assert.equal(
      (await world.local('PUBLISH', '/docs/test.md', { auth: world.tokens.reader! }, '# T\n')).status,
      'not-permitted',
    );
    assert.equal(
      (await world.local('PUBLISH', '/docs/test.md', { auth: world.tokens.docs! }, '# T\n')).status,
      'created',
    );
  });

  it('archives and unarchives (38)', async () => {
    assert.equal((await world.local('ARCHIVE', '/missing.md', { auth })).status, 'not-found');
    await world.local('PUBLISH', '/doc.md', { auth }, '# Doc\n');
    assert.equal((await world.local('ARCHIVE', '/doc.md')).status, 'unauthorized');
    const archived = await world.local('ARCHIVE', '/doc.md', { auth });
    assert.deepEqual([archived.status, archived.metadata.archived], ['ok', 'true']);
    assert.equal((await world.local('ARCHIVE', '/doc.md', { auth })).status, 'ok');
    assert.equal((await world.local('FETCH', '/doc.md')).status, 'archived');
    assert.equal((await world.local('FETCH', '/doc.md/v1')).status, 'ok');
    assert.equal((await world.local('PUBLISH', '/doc.md', { auth }, '# New\n')).status, 'archived');
    const unarchived = await world.local('PUBLISH', '/doc.md', { auth }, '');
    assert.deepEqual([unarchived.status, unarchived.metadata.version], ['ok', '1']);
    assert.equal((await world.local('FETCH', '/doc.md')).status, 'ok');
    assert.equal((await world.local('PUBLISH', '/never.md', { auth }, '')).status, 'not-found');
  });

  it('applies the APPEND rules (39)', async () => {
    await world.local('PUBLISH', '/log-a.md', { auth }, '# Log\n');
    assert.match(
      text(await world.local('APPEND', '/log-a.md', { auth }, 'x')),
      /APPEND requires expected-version metadata/,
    );
    assert.match(
      text(await world.local('APPEND', '/log-a.md', { auth, 'expected-version': '0' }, 'x')),
      /must be >= 1/,
    );
    assert.match(
      text(await world.local('APPEND', '/log-a.md', { auth, 'expected-version': '1' }, '')),
      /append requires a body/,
    );
    assert.equal((await world.local('APPEND', '/nope.md', { auth, 'expected-version': '1' }, 'x')).status, 'not-found');
    const conflict = await world.local('APPEND', '/log-a.md', { auth, 'expected-version': '5' }, 'x');
    assert.equal(conflict.status, 'conflict');
    assert.match(text(conflict), /verify whether your append was applied/);
    await world.local('ARCHIVE', '/log-a.md', { auth });
    assert.equal((await world.local('APPEND', '/log-a.md', { auth, 'expected-version': '1' }, 'x')).status, 'archived');
  });

  it('refuses writes to reserved hash paths before auth', async () => {
    const response = await world.local('PUBLISH', `/sha256-${'a'.repeat(64)}`, {}, '# x\n');
    assert.match(text(response), /paths matching \/sha256-<hash> are reserved/);
  });
});

describe('writes without a tokens file (37)', () => {
  it('answers not-permitted: publishing requires auth configuration', async () => {
    const world = await startWorldFixture({ tokens: null });
    try {
      const response = await world.local('PUBLISH', '/doc.md', {}, '# Doc\n');
      assert.equal(response.status, 'not-permitted');
      assert.match(text(response), /publishing requires auth configuration/);
      assert.match(text(await world.local('ARCHIVE', '/doc.md')), /archiving requires auth configuration/);
    } finally {
      await world.close();
    }
  });
});

describe('store refusals (Go handler/status_mapping_test.go)', () => {
  it('maps quota, policy, read-only and unclassified refusals for every write verb', async () => {
    let refusal: Error | null = null;
    const world = await startWorldFixture({
      world: {
        writeCheck: () => {
          if (refusal) throw refusal;
        },
      },
    });
    const auth = world.tokens.writer!;
    try {
      await world.local('PUBLISH', '/r.md', { auth }, '# R\n');
      const cases: Array<[Error, string, RegExp]> = [
        [new StoreError('ERR_QUOTA', 'quota exceeded for this world'), 'not-permitted', /quota/],
        [new StoreError('ERR_REJECTED', 'policy: missing-tags'), 'bad-request', /missing-tags/],
        [new StoreError('ERR_READ_ONLY', 'read-only'), 'not-permitted', /read-only/],
        [new Error('disk on fire'), 'server-error', /internal error/],
      ];
      for (const [error, status, body] of cases) {
        refusal = error;
        for (const [verb, meta, payload] of [
          ['PUBLISH', {}, '# R2\n'],
          ['APPEND', { 'expected-version': '1' }, 'more'],
        ] as const) {
          const response = await world.local(verb, '/r.md', { auth, ...meta }, payload);
          assert.equal(response.status, status, `${verb} ${error.message}`);
          assert.match(text(response), body);
          assert.doesNotMatch(text(response), /disk on fire/);
        }
      }
    } finally {
      await world.close();
    }
  });
});

describe('LIST validation', () => {
  let world: WorldFixture;
  before(async () => {
    world = await startWorldFixture();
    await world.local('PUBLISH', '/docs/a.md', { auth: world.tokens.writer! }, '# A\n');
  });
  after(() => world.close());

  const cases: Array<[Record<string, string>, RegExp]> = [
    [{ 'include-archived': 'yes' }, /include-archived must be true or false/],
    [{ 'page-size': '0' }, /page-size must be between 1 and 1000/],
    [{ 'page-size': '1001' }, /page-size must be between 1 and 1000/],
    [{ cursor: '!!!' }, /invalid LIST cursor/],
    [{ cursor: `${Buffer.from([2, 0, 0, 5]).toString('base64url')}L2RvY3M` }, /unsupported LIST cursor/],
    [{ cursor: 'AQAABS9kb2NzYS5tZA', 'include-archived': 'true' }, /LIST cursor does not match this request/],
  ];
  for (const [meta, message] of cases) {
    it(`answers bad-request to ${JSON.stringify(meta)}`, async () => {
      const response = await world.local('LIST', '/docs', meta);
      assert.equal(response.status, 'bad-request');
      assert.match(text(response), message);
    });
  }
});
