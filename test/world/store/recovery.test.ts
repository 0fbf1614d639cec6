import assert from 'node:assert/strict';
import { mkdir, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { FileStore, inspectStoredVersion, isStoreError, serializeVersion } from '../../../src/world/store/index.ts';
import { bytes, openStore, pinnedNow, removeTempRoots, tempRoot } from './support.ts';

after(removeTempRoots);

const docDir = (root: string, base = 'a.md'): string => path.join(root, 'versions', base);

/** Publish v1 and v2 of /a.md, then leave a complete v3 on disk that the pointer does not name. */
async function crashAfterLink(): Promise<string> {
  const { store, root } = await openStore();
  await store.publish('/a.md', bytes('one\n'), { tags: 'x' });
  const v2 = (await store.publish('/a.md', bytes('two\n'), { tags: 'x' })).version;
  await writeFile(path.join(docDir(root), 'v3'), serializeVersion(3, v2.raw, bytes('three\n'), { tags: 'x' }));
  return root;
}

describe('start-up repair (crash recovery)', () => {
  it('keeps readers on the pointed-to version until the store is reopened for writing', async () => {
    const root = await crashAfterLink();
    const readOnly = await FileStore.open(root, { readOnly: true });
    assert.equal((await readOnly.current('/a.md'))?.current.version, 2);
  });

  it('rolls a complete unreferenced version forward', async () => {
    const root = await crashAfterLink();
    const store = await FileStore.open(root);
    assert.deepEqual(store.recovery.repointed, ['/a.md']);
    assert.equal(await readlink(path.join(root, 'a.md')), 'versions/a.md/v3');
    assert.equal((await store.current('/a.md'))?.current.version, 3);
    assert.equal((await store.history('/a.md'))?.chainValid, true);
    assert.equal(
      (await store.publish('/a.md', bytes('four\n'), { tags: 'x' }, { expectedVersion: 3 })).version.version,
      4,
    );
  });

  it('moves a torn unreferenced version aside and keeps the last complete one', async () => {
    const { store, root } = await openStore();
    await store.publish('/a.md', bytes('one\n'), {});
    const v2 = (await store.publish('/a.md', bytes('two\n'), {})).version;
    const full = serializeVersion(3, v2.raw, bytes('three\n'), {});
    await writeFile(path.join(docDir(root), 'v3'), full.subarray(0, 25));
    const reopened = await FileStore.open(root, { now: () => pinnedNow });
    assert.deepEqual(reopened.recovery.quarantined, ['/a.md/v3']);
    assert.equal((await reopened.current('/a.md'))?.current.version, 2);
    assert.ok((await readdir(docDir(root))).some((name) => name.startsWith('.v3.torn-')));
    const next = await reopened.publish('/a.md', bytes('three\n'), {}, { expectedVersion: 2 });
    assert.equal(next.version.version, 3);
    assert.equal((await reopened.history('/a.md'))?.chainValid, true);
  });

  it('moves aside an unreferenced version that does not chain to the one below it', async () => {
    const { store, root } = await openStore();
    await store.publish('/a.md', bytes('one\n'), {});
    await store.publish('/a.md', bytes('two\n'), {});
    const forged = serializeVersion(3, bytes('not v2'), bytes('three\n'), {});
    await writeFile(path.join(docDir(root), 'v3'), forged);
    const reopened = await FileStore.open(root);
    assert.equal((await reopened.current('/a.md'))?.current.version, 2);
  });

  it('points a document whose first publish stopped before the pointer at its v1', async () => {
    const root = await tempRoot();
    await mkdir(docDir(root), { recursive: true });
    await writeFile(path.join(docDir(root), 'v1'), serializeVersion(1, null, bytes('one\n'), {}));
    await writeFile(path.join(root, 'flat.md'), 'flat');
    await mkdir(docDir(root, 'flat.md'));
    await writeFile(path.join(docDir(root, 'flat.md'), 'v1'), serializeVersion(1, null, bytes('replaces flat\n'), {}));
    const store = await FileStore.open(root);
    assert.deepEqual([...store.recovery.repointed].sort(), ['/a.md', '/flat.md']);
    assert.equal((await store.current('/a.md'))?.current.version, 1);
    assert.equal(await readlink(path.join(root, 'flat.md')), 'versions/flat.md/v1');
  });

  it('removes temp files and temp links an interrupted write left', async () => {
    const { store, root } = await openStore();
    await store.publish('/a.md', bytes('one\n'), {});
    await writeFile(path.join(docDir(root), '.v2.tmp-123-abcdef'), 'partial');
    await writeFile(path.join(docDir(root), '.archive-state-42'), 'tr');
    await symlink('versions/a.md/v2', path.join(root, 'a.md.tmp'));
    await symlink('versions/a.md/v2', path.join(docDir(root), '.pointer-123-abcdef'));
    await mkdir(path.join(root, 'b.md.tmp'));
    const reopened = await FileStore.open(root);
    assert.equal(reopened.recovery.removedTemps, 4);
    assert.deepEqual(await readdir(docDir(root)), ['v1']);
    // A folder named like Go's temp link is a publisher's folder: kept.
    assert.deepEqual((await readdir(root)).sort(), ['a.md', 'b.md.tmp', 'versions']);
    assert.equal((await reopened.current('/a.md'))?.current.version, 1);
  });

  it('leaves a read-only store exactly as it found it', async () => {
    const { store, root } = await openStore();
    await store.publish('/a.md', bytes('one\n'), {});
    await writeFile(path.join(docDir(root), '.v2.tmp-1-aa'), 'partial');
    await FileStore.open(root, { readOnly: true });
    assert.deepEqual((await readdir(docDir(root))).sort(), ['.v2.tmp-1-aa', 'v1']);
  });

  it('migrates legacy versions/<name>.v<N> files into per-document directories', async () => {
    const root = await tempRoot();
    const v1 = serializeVersion(1, null, bytes('one\n'), {});
    const v2 = Buffer.from(
      serializeVersion(2, v1, bytes('two\n'), {}).toString().replace('archived: false', 'archived: true'),
    );
    await mkdir(path.join(root, 'versions'));
    await writeFile(path.join(root, 'versions', 'old.md.v1'), v1);
    await writeFile(path.join(root, 'versions', 'old.md.v2'), v2);
    await writeFile(path.join(root, 'versions', 'notes.txt.v1'), 'not markdown: left alone');
    await symlink('versions/old.md.v2', path.join(root, 'old.md'));
    const store = await FileStore.open(root);
    assert.equal(store.recovery.migrated, 2);
    assert.equal(await readlink(path.join(root, 'old.md')), 'versions/old.md/v2');
    assert.deepEqual((await readdir(docDir(root, 'old.md'))).sort(), ['v1', 'v2']);
    const doc = await store.current('/old.md');
    assert.equal(doc?.current.version, 2);
    assert.equal(doc?.archived, true, 'without archive-state the legacy flag of the tip counts');
    assert.equal((await store.history('/old.md'))?.chainValid, true);
    assert.ok((await readdir(path.join(root, 'versions'))).includes('notes.txt.v1'));
  });
});

describe('chain verification (Mark SPEC §9.6)', () => {
  it('reports a broken chain when an old version is tampered with', async () => {
    const { store, root } = await openStore();
    await store.publish('/a.md', bytes('one\n'), {});
    await store.publish('/a.md', bytes('two\n'), {});
    const v1Path = path.join(docDir(root), 'v1');
    await writeFile(v1Path, (await readFile(v1Path, 'utf8')).replace('one', 'ONE'));
    const history = await store.history('/a.md');
    assert.equal(history?.chainValid, false);
    assert.match(history?.chainError ?? '', /v2 chain broken: previous-hash mismatch/);
  });

  it('reports a version that fails the strict reader', async () => {
    const { store, root } = await openStore();
    await store.publish('/a.md', bytes('one\n'), { type: 'Note', title: 'T' });
    const v1Path = path.join(docDir(root), 'v1');
    const swapped = (await readFile(v1Path, 'utf8')).replace('title: T\ntype: Note', 'type: Note\ntitle: T');
    await writeFile(v1Path, swapped);
    assert.throws(
      () => inspectStoredVersion(bytes(swapped)),
      (err: unknown) => isStoreError(err, 'ERR_INTEGRITY'),
    );
    const history = await store.history('/a.md');
    assert.equal(history?.chainValid, false);
    assert.match(history?.chainError ?? '', /not strictly sorted/);
  });

  it('takes the oldest retained version as the root of the chain', async () => {
    const { store, root } = await openStore();
    for (const body of ['one', 'two', 'three']) await store.publish('/a.md', bytes(body), {});
    await rm(path.join(docDir(root), 'v1'));
    assert.equal((await store.history('/a.md'))?.chainValid, true);
  });

  it('treats a corrupt archive-state file as an integrity failure, not as live', async () => {
    const { store, root } = await openStore();
    await store.publish('/a.md', bytes('one\n'), {});
    await writeFile(path.join(docDir(root), 'archive-state'), 'yes\n');
    // The store caches what it wrote; a fresh reader sees the edit made behind its back.
    const reader = await FileStore.open(root, { readOnly: true });
    await assert.rejects(reader.current('/a.md'), (err: unknown) => isStoreError(err, 'ERR_INTEGRITY'));
  });
});
