import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { lstat, readFile, readlink, stat } from 'node:fs/promises';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { extractPublisherMeta, FileStore, isStoreError } from '../../../src/world/store/index.ts';
import { bytes, openStore, pinnedNow, removeTempRoots, text } from './support.ts';

after(removeTempRoots);

const sha256 = (data: Uint8Array | string): string => createHash('sha256').update(data).digest('hex');
const goldenRequest = { auth: 'T', 'expected-version': '0', importance: '0.7', tags: 'alpha, wire', type: 'Note' };

/** The golden scenario of test/golden/mark (publishes, append, archive), run through the store in order on an empty root. */
describe('the golden scenario on disk (Go storetest/wiregolden.go)', () => {
  let store: FileStore;
  let root: string;

  before(async () => {
    ({ store, root } = await openStore());
    const meta = extractPublisherMeta(goldenRequest);
    await store.publish('/docs/a.md', bytes('# Alpha\n\nFirst body.\n'), meta, { expectedVersion: 0 });
    await store.publish('/docs/a.md', bytes('# Alpha\n\nSecond body.\n\n## Details\n\nSee [beta](b.md).\n'), meta, {
      expectedVersion: 1,
    });
  });

  it('answers a stale expected-version with conflict and the server version (case 3)', async () => {
    const meta = extractPublisherMeta(goldenRequest);
    await assert.rejects(
      store.publish('/docs/a.md', bytes('# Alpha\n\nThird.\n'), meta, { expectedVersion: 1 }),
      (err: unknown) => {
        assert.ok(isStoreError(err, 'ERR_CONFLICT'));
        assert.equal(err.serverVersion, 2);
        return true;
      },
    );
  });

  it('appends v3 with inherited metadata and the golden etag (case 4)', async () => {
    const outcome = await store.append('/docs/a.md', bytes('\n## Appended\n\nMore.\n'), {}, { expectedVersion: 2 });
    assert.equal(outcome.kind, 'created');
    const v3 = outcome.version;
    assert.equal(v3.version, 3);
    assert.equal(v3.etag, '693067c46c892c9ff8b035c8b3848fb3a8b74a1f5787f5bc960688ce678573dd');
    assert.equal(v3.contentHash, 'sha256-050018a246d303b7fd8806eb84e88535b6cc8510e829715f87b7337158e05919');
    assert.deepEqual(v3.metadata, { importance: '0.7', tags: 'alpha,wire', type: 'Note' });
    assert.equal(v3.modified.toISOString(), pinnedNow.toISOString());
  });

  it('lays the document out as a relative symlink into its versions directory', async () => {
    assert.equal(await readlink(path.join(root, 'docs', 'a.md')), 'versions/a.md/v3');
    for (const n of [1, 2, 3]) {
      const info = await lstat(path.join(root, 'docs', 'versions', 'a.md', `v${n}`));
      assert.ok(info.isFile(), `v${n} is a regular file`);
      assert.equal(info.mtime.toISOString(), pinnedNow.toISOString());
    }
    assert.equal(
      await readFile(path.join(root, 'docs', 'versions', 'a.md', 'v1'), 'utf8'),
      '---\nversion: 1\narchived: false\nmeta.importance: 0.7\ntags: [alpha, wire]\ntype: Note\n---\n# Alpha\n\nFirst body.\n',
    );
    assert.equal(
      sha256(await readFile(path.join(root, 'docs', 'a.md'))),
      '693067c46c892c9ff8b035c8b3848fb3a8b74a1f5787f5bc960688ce678573dd',
    );
  });

  it('serves the current version and every pinned version with their etags (cases 6-7)', async () => {
    const doc = await store.current('/docs/a.md');
    assert.equal(doc?.current.version, 3);
    assert.equal(doc?.archived, false);
    const v1 = await store.version('/docs/a.md', 1);
    assert.equal(v1?.etag, '94e05cf0cc64c6e22e485312b29407d06ab5a85989f6b2ce566638405b4ad0ee');
    assert.equal(v1?.contentHash, 'sha256-534b0f02677fcd121e7c4be275e533709b0788060ccf2da54950441c698c527a');
    assert.equal(text(v1?.body ?? bytes('')), '# Alpha\n\nFirst body.\n');
    assert.equal(
      sha256((await store.version('/docs/a.md', 2))?.raw ?? ''),
      'ced1c087a076403ee1ce2c039ade8e6e8f4eca52196852530f6280b76622ba84',
    );
    assert.equal(await store.version('/docs/a.md', 4), null);
    assert.equal(await store.current('/docs/missing.md'), null);
  });

  it('lists the history newest first with a valid chain (case 12)', async () => {
    const history = await store.history('/docs/a.md');
    assert.deepEqual(history, {
      versions: [3, 2, 1].map((version) => ({ version, modified: pinnedNow })),
      chainValid: true,
    });
  });

  it('lists documents and directories by name (case 9)', async () => {
    await store.publish(
      '/docs/b.md',
      bytes('# Beta | piped\n\nBody of beta.\n'),
      { tags: 'beta', importance: '0.4', type: 'Document' },
      { expectedVersion: 0 },
    );
    await store.publish('/docs/sub/c d.md', bytes('# Gamma\n'), { type: 'Document' }, { expectedVersion: 0 });
    assert.deepEqual(await store.list('/docs', { includeArchived: false }), [
      { name: 'a.md', kind: 'document', archived: false },
      { name: 'b.md', kind: 'document', archived: false },
      { name: 'sub', kind: 'directory', archived: false },
    ]);
    await assert.rejects(store.list('/nowhere', { includeArchived: false }), (err: unknown) =>
      isStoreError(err, 'ERR_NOT_FOUND'),
    );
  });

  it('archives without a new version, in the archive-state file (case 14)', async () => {
    const before = await store.current('/docs/b.md');
    assert.deepEqual(await store.archive('/docs/b.md'), { version: 1, changed: true });
    assert.equal(await readFile(path.join(root, 'docs', 'versions', 'b.md', 'archive-state'), 'utf8'), 'true\n');
    const after = await store.current('/docs/b.md');
    assert.equal(after?.archived, true);
    assert.equal(after?.current.etag, before?.current.etag);
    assert.equal(after?.current.version, 1);
    assert.deepEqual(
      (await store.list('/docs', { includeArchived: false })).map((e) => e.name),
      ['a.md', 'sub'],
    );
    assert.deepEqual((await store.list('/docs', { includeArchived: true }))[1], {
      name: 'b.md',
      kind: 'document',
      archived: true,
    });
  });

  it('walks every current document, archived ones flagged', async () => {
    const seen: [string, number, boolean][] = [];
    for await (const doc of store.documents()) seen.push([doc.path, doc.current.version, doc.archived]);
    assert.deepEqual(seen, [
      ['/docs/a.md', 3, false],
      ['/docs/b.md', 1, true],
      ['/docs/sub/c d.md', 1, false],
    ]);
  });

  it('reads the same state after reopening the root', async () => {
    const reopened = await FileStore.open(root);
    assert.deepEqual(reopened.recovery, { removedTemps: 0, migrated: 0, repointed: [], quarantined: [] });
    const doc = await reopened.current('/docs/a.md');
    assert.equal(doc?.current.etag, '693067c46c892c9ff8b035c8b3848fb3a8b74a1f5787f5bc960688ce678573dd');
    assert.equal((await reopened.current('/docs/b.md'))?.archived, true);
    assert.equal((await reopened.history('/docs/a.md'))?.chainValid, true);
  });
});

describe('hashes of stored versions (cases 25, 29)', () => {
  it('takes the etag over the stored bytes and the content hash over the body (case 25)', async () => {
    const { store } = await openStore();
    const outcome = await store.publish('/hello.md', bytes('# Hello World\n'), {});
    assert.equal(outcome.version.etag, sha256('---\nversion: 1\narchived: false\n---\n# Hello World\n'));
    assert.equal(outcome.version.contentHash, `sha256-${sha256('# Hello World\n')}`);
  });

  it('changes the etag but not the content hash on a metadata-only change (case 29)', async () => {
    const { store } = await openStore();
    const v1 = (await store.publish('/hello.md', bytes('# Hello\n'), { tags: 'a' })).version;
    const outcome = await store.publish('/hello.md', bytes('# Hello\n'), { tags: 'a, b' });
    assert.equal(outcome.kind, 'created');
    assert.equal(outcome.version.version, 2);
    assert.notEqual(outcome.version.etag, v1.etag);
    assert.equal(outcome.version.contentHash, v1.contentHash);
  });

  it('reports modified as the version file mtime truncated to the second', async () => {
    const { store, root } = await openStore({ now: () => new Date('2026-03-04T05:06:07.890Z') });
    const outcome = await store.publish('/t.md', bytes('x'), {});
    assert.equal(outcome.version.modified.toISOString(), '2026-03-04T05:06:07.000Z');
    assert.equal(
      (await stat(path.join(root, 'versions', 't.md', 'v1'))).mtime.toISOString(),
      '2026-03-04T05:06:07.890Z',
    );
    assert.equal((await store.current('/t.md'))?.current.modified.toISOString(), '2026-03-04T05:06:07.000Z');
  });
});
