import assert from 'node:assert/strict';
import { mkdir, readFile, readlink, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { isStoreError, serializeVersion } from '../../../src/world/store/index.ts';
import { bytes, openStore, removeTempRoots, tempRoot } from './support.ts';

after(removeTempRoots);

const names = (entries: { name: string }[]): string[] => entries.map((e) => e.name);

describe('flat files without history (Mark SPEC §9.8)', () => {
  it('are not documents: no current version, no history, not listed', async () => {
    const { store, root } = await openStore();
    await writeFile(path.join(root, 'flat.md'), '# Flat\n');
    await store.publish('/real.md', bytes('# Real\n'), {});
    assert.equal(await store.current('/flat.md'), null);
    assert.equal(await store.history('/flat.md'), null);
    assert.equal(await store.version('/flat.md', 1), null);
    assert.deepEqual(names(await store.list('/', { includeArchived: true })), ['real.md']);
  });

  it('are replaced by the first PUBLISH, without importing their content', async () => {
    const { store, root } = await openStore();
    await writeFile(path.join(root, 'flat.md'), '# Flat\n');
    const outcome = await store.publish('/flat.md', bytes('# Published\n'), {}, { expectedVersion: 0 });
    assert.equal(outcome.version.version, 1);
    assert.equal(await readlink(path.join(root, 'flat.md')), 'versions/flat.md/v1');
    assert.equal(
      await readFile(path.join(root, 'flat.md'), 'utf8'),
      '---\nversion: 1\narchived: false\n---\n# Published\n',
    );
  });

  it('do not make their directory appear in a listing', async () => {
    const { store, root } = await openStore();
    await mkdir(path.join(root, 'notes'));
    await writeFile(path.join(root, 'notes', 'loose.md'), 'x');
    await store.publish('/docs/a.md', bytes('a'), {});
    assert.deepEqual(names(await store.list('/', { includeArchived: true })), ['docs']);
  });
});

describe('LIST entries (Mark SPEC §6.2)', () => {
  it('sorts by UTF-8 byte order and leaves out dot-files and versions directories', async () => {
    const { store, root } = await openStore();
    for (const name of ['z.md', 'é.md', 'B.md', 'a.md', '.hidden.md', 'sub/x.md', '.well-known/agent-manifest.md']) {
      await store.publish(`/${name}`, bytes(name), {});
    }
    await writeFile(path.join(root, '.dotfile'), 'x');
    assert.deepEqual(names(await store.list('/', { includeArchived: true })), ['B.md', 'a.md', 'sub', 'z.md', 'é.md']);
    assert.deepEqual(await store.list('/sub', { includeArchived: false }), [
      { name: 'x.md', kind: 'document', archived: false },
    ]);
    const walked: string[] = [];
    for await (const doc of store.documents()) walked.push(doc.path);
    assert.deepEqual(
      walked,
      ['/.hidden.md', '/.well-known/agent-manifest.md', '/B.md', '/a.md', '/sub/x.md', '/z.md', '/é.md'],
      'the walk includes hidden documents',
    );
  });

  it('hides a directory whose documents are all archived unless archived entries are asked for', async () => {
    const { store } = await openStore();
    await store.publish('/old/deep/a.md', bytes('a'), {});
    await store.publish('/live.md', bytes('l'), {});
    await store.archive('/old/deep/a.md');
    assert.deepEqual(names(await store.list('/', { includeArchived: false })), ['live.md']);
    assert.deepEqual(await store.list('/', { includeArchived: true }), [
      { name: 'live.md', kind: 'document', archived: false },
      { name: 'old', kind: 'directory', archived: true },
    ]);
    await store.publish('/old/b.md', bytes('b'), {});
    assert.deepEqual(names(await store.list('/', { includeArchived: false })), ['live.md', 'old']);
  });

  it('answers not-found for a path that is not a directory', async () => {
    const { store } = await openStore();
    await store.publish('/a.md', bytes('a'), {});
    for (const p of ['/a.md', '/missing', '/../etc']) {
      await assert.rejects(store.list(p, { includeArchived: false }), (err: unknown) =>
        isStoreError(err, 'ERR_NOT_FOUND'),
      );
    }
    assert.deepEqual(names(await store.list('/', { includeArchived: false })), ['a.md']);
  });

  it('tells directories from documents and missing paths (case 31)', async () => {
    const { store } = await openStore();
    await store.publish('/api/v2/doc.md', bytes('d'), {});
    assert.equal(await store.isDirectory('/api/v2'), true);
    assert.equal(await store.isDirectory('/api/v2/'), true);
    assert.equal(await store.isDirectory('/'), true);
    assert.equal(await store.isDirectory('/api/v9'), false);
    assert.equal(await store.isDirectory('/api/v2/doc.md'), false);
    assert.equal((await store.version('/api/v2/doc.md', 1))?.version, 1);
  });
});

describe('containment', () => {
  it('does not read history through a symlink that leaves the root', async () => {
    const outside = await tempRoot();
    const { store, root } = await openStore();
    const v1 = serializeVersion(1, null, bytes('secret'), {});
    await mkdir(path.join(outside, 'versions', 'x.md'), { recursive: true });
    await writeFile(path.join(outside, 'versions', 'x.md', 'v1'), v1);
    await symlink('versions/x.md/v1', path.join(outside, 'x.md'));
    await symlink(outside, path.join(root, 'evil'));
    assert.equal(await store.current('/evil/x.md'), null);
    assert.equal(await store.version('/evil/x.md', 1), null);
    assert.equal(await store.isDirectory('/evil'), false);
    await assert.rejects(store.publish('/evil/y.md', bytes('y'), {}), (err: unknown) =>
      isStoreError(err, 'ERR_NOT_FOUND'),
    );
  });
});

describe('a listing whose client gave up (src/transport/peer-abandonment.ts)', () => {
  it('stops with the signal’s reason instead of checking the entries', async () => {
    const { store } = await openStore();
    for (let i = 0; i < 40; i += 1) await store.publish(`/many/${i}.md`, bytes('# Doc\n'), {});
    assert.equal((await store.list('/many', { includeArchived: false })).length, 40);
    const gaveUp = new AbortController();
    const reason = new Error('the client reset the stream');
    gaveUp.abort(reason);
    await assert.rejects(
      store.list('/many', { includeArchived: false, signal: gaveUp.signal }),
      (error) => error === reason,
    );
  });
});

describe('a window of a listing (a LIST page: docs/benchmarks.md, "LIST of large folders")', () => {
  const names40 = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(2, '0')}.md`);

  it('checks entries only until the window is full', async () => {
    const { store, root } = await openStore();
    for (const name of names40) await store.publish(`/many/${name}`, bytes('# Doc\n'), {});
    // The last entry's archive state is unreadable: checking it fails the whole listing.
    await writeFile(path.join(root, 'many', 'versions', '39.md', 'archive-state'), 'maybe\n');
    await assert.rejects(store.list('/many', { includeArchived: false }), (err: unknown) =>
      isStoreError(err, 'ERR_INTEGRITY'),
    );
    // A page of five, plus the one that says more follow, never reaches it.
    assert.deepEqual(names(await store.list('/many', { includeArchived: false, limit: 6 })), names40.slice(0, 6));
  });

  it('starts after the cursor’s name and leaves out what admit refuses, before the limit', async () => {
    const { store } = await openStore();
    for (const name of names40) await store.publish(`/many/${name}`, bytes('# Doc\n'), {});
    await store.publish('/many/sub/x.md', bytes('# X\n'), {});
    const seen: string[] = [];
    const page = await store.list('/many', {
      includeArchived: false,
      after: '09.md',
      admit: (name, kind) => {
        seen.push(`${name}:${kind}`);
        return name !== '10.md' && name !== '11.md';
      },
      limit: 3,
    });
    assert.deepEqual(names(page), ['12.md', '13.md', '14.md']);
    assert.equal(seen.includes('09.md:document'), false, 'an entry before the cursor was offered');
    assert.equal(seen.includes('sub:directory'), true);
  });
});
