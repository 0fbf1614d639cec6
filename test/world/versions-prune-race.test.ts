/**
 * VERSIONS reads a document's history without the write lock (src/world/store/path-locks.ts:
 * readers take none), so a retention prune can remove versions it listed before it reads them
 * (Mark SPEC §9.6; the Go server answers read verbs from one read snapshot). Before the fix the
 * read failed with server-error ("version disappeared during verification", or ENOENT from the
 * lstat of a listed version): the held read below did so every time, and the loops saw 6 to 23
 * server-errors a run (the store review's /tmp/store-fixes/t6.ts: 23 in one run here; 15 in this
 * file's loop test, with the fix reversed).
 *
 * A real world server and its real file store; the loops call it in-process.
 */
import assert from 'node:assert/strict';
import { realpath, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { readHistory } from '../../src/world/store/doc-reader.ts';
import { serializeVersion, type HistoryReading } from '../../src/world/store/index.ts';
import { startWorldFixture, text, type WorldFixture } from './world-fixture.ts';

describe('VERSIONS while a retention prune removes versions', () => {
  let world: WorldFixture;
  let auth: string;
  before(async () => {
    world = await startWorldFixture();
    auth = world.tokens.writer!;
  });
  after(() => world.close());

  /** Runs `task` with the store's history reads calling `hook` before each version, then restores them. */
  async function withReadHook<T>(hook: (version: number) => Promise<void>, task: () => Promise<T>): Promise<T> {
    const store = world.server.world.context.store;
    const history = store.history;
    const root = { root: store.root, realRoot: await realpath(store.root) };
    store.history = (docPath: string, reading: HistoryReading = {}) => readHistory(root, docPath, reading, hook);
    try {
      return await task();
    } finally {
      store.history = history;
    }
  }

  it('answers the versions left when the prune runs in the middle of the chain check', async () => {
    for (const body of ['# one\n', '# two\n', '# three\n'])
      assert.equal((await world.local('PUBLISH', '/held.md', { auth }, body)).status, 'created');
    let pruned = false;
    // Before the chain check reads v2 (v1 read), v4 is published with retention 2, which removes v1 and v2.
    const pruneBeforeV2 = async (version: number) => {
      if (version !== 2 || pruned) return;
      pruned = true;
      const write = await world.local('PUBLISH', '/held.md', { auth, retention: '2' }, '# four\n');
      assert.equal(write.status, 'created');
    };
    const response = await withReadHook(pruneBeforeV2, () => world.local('VERSIONS', '/held.md'));
    assert.equal(pruned, true, 'the prune did not run inside the chain check');
    assert.equal(response.status, 'ok', text(response));
    assert.equal(response.metadata.current, '4');
    assert.equal(response.metadata.total, '2');
    assert.equal(response.metadata['chain-valid'], 'true');
    assert.deepEqual(
      [...text(response).matchAll(/^- \[(v\d+)\]/gm)].map((match) => match[1]),
      ['v4', 'v3'],
    );
  });

  it('starts over when the newest listed version is removed (a failed write rolled back)', async () => {
    for (const body of ['# one\n', '# two\n'])
      assert.equal((await world.local('PUBLISH', '/rolled.md', { auth }, body)).status, 'created');
    const store = world.server.world.context.store;
    const v2 = await store.version('/rolled.md', 2);
    assert.ok(v2 !== null);
    // A write that linked v3 and has not swapped the pointer yet; its rollback unlinks v3 while v3 is next to read.
    const v3Path = join(world.dir, 'root', 'versions', 'rolled.md', 'v3');
    await writeFile(v3Path, serializeVersion(3, v2.raw, Buffer.from('# three\n'), {}));
    let rolledBack = false;
    const rollBackBeforeV3 = async (version: number) => {
      if (version !== 3 || rolledBack) return;
      rolledBack = true;
      await unlink(v3Path);
    };
    const response = await withReadHook(rollBackBeforeV3, () => world.local('VERSIONS', '/rolled.md'));
    assert.equal(rolledBack, true, 'v3 was not listed');
    assert.equal(response.status, 'ok', text(response));
    assert.equal(response.metadata.current, '2');
    assert.equal(response.metadata.total, '2');
    assert.equal(response.metadata['chain-valid'], 'true');
  });

  it('reads at most twice the listed versions while the newest keeps being removed (every pass a full restart)', async () => {
    const listed = 10;
    for (let i = 1; i <= listed; i += 1)
      assert.equal((await world.local('PUBLISH', '/shrinking.md', { auth }, `# s${i}\n`)).status, 'created');
    const historyDir = join(world.dir, 'root', 'versions', 'shrinking.md');
    // Each pass loses its newest listed version just before reading it, so every pass is a full restart.
    let newest = listed;
    let reads = 0;
    const removeNewestBeforeReading = async (version: number) => {
      reads += 1;
      if (version !== newest) return;
      newest -= 1;
      await unlink(join(historyDir, `v${version}`));
    };
    const response = await withReadHook(removeNewestBeforeReading, () => world.local('VERSIONS', '/shrinking.md'));
    assert.equal(response.status, 'server-error', text(response));
    assert.ok(reads <= 2 * listed, `${reads} version reads for ${listed} listed`);
  });

  it('answers after more prunes than twice the listed versions, since sliding above a pruned version reads nothing twice', async () => {
    for (const body of ['# one\n', '# two\n'])
      assert.equal((await world.local('PUBLISH', '/sliding.md', { auth }, body)).status, 'created');
    // Before each of the first `prunes` reads, a publish with retention 2 removes the version about to be read,
    // so every pass loses its oldest version and slides to the two above it: reads exceed 2 × the listing of 2.
    const prunes = 5;
    let published = 0;
    let reads = 0;
    const pruneBeforeReading = async () => {
      reads += 1;
      if (published === prunes) return;
      published += 1;
      const write = await world.local('PUBLISH', '/sliding.md', { auth, retention: '2' }, `# p${published}\n`);
      assert.equal(write.status, 'created');
    };
    const response = await withReadHook(pruneBeforeReading, () => world.local('VERSIONS', '/sliding.md'));
    assert.equal(response.status, 'ok', text(response));
    assert.equal(published, prunes);
    assert.ok(reads > 2 * 2, `only ${reads} version reads: the sliding path was not exercised`);
    assert.equal(response.metadata.current, String(2 + prunes));
    assert.equal(response.metadata.total, '2');
    assert.equal(response.metadata['chain-valid'], 'true');
  });

  it('VERSIONS and FETCH loops see no server-error while 60 publishes with retention 2 prune', async () => {
    assert.equal((await world.local('PUBLISH', '/r.md', { auth }, '# r0\n')).status, 'created');
    let writing = true;
    const counts = { versionsOk: 0, fetchOk: 0, other: [] as string[] };
    const loop = async (verb: 'VERSIONS' | 'FETCH') => {
      while (writing) {
        await new Promise((resolve) => setImmediate(resolve));
        const response = await world.local(verb, '/r.md');
        if (response.status !== 'ok') counts.other.push(`${verb} ${response.status}: ${text(response).trim()}`);
        else if (verb === 'VERSIONS') counts.versionsOk += 1;
        else counts.fetchOk += 1;
      }
    };
    const readers = [loop('VERSIONS'), loop('FETCH')];
    for (let i = 1; i <= 60; i += 1) {
      const write = await world.local('PUBLISH', '/r.md', { auth, retention: '2' }, `# r${i}\n`);
      assert.equal(write.status, 'created');
    }
    writing = false;
    await Promise.all(readers);
    assert.deepEqual(counts.other, []);
    assert.ok(counts.versionsOk > 0 && counts.fetchOk > 0, 'a reader loop never ran');
    const final = await world.local('VERSIONS', '/r.md');
    assert.equal(final.metadata.current, '61');
    assert.equal(final.metadata.total, '2');
  });
});
