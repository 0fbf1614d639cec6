import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { maxBodyBytes } from '../../../src/protocol/limits.ts';
import {
  FileStore,
  isStoreError,
  StoreError,
  type ChangeEvent,
  type StoreErrorCode,
} from '../../../src/world/store/index.ts';
import { bytes, openStore, removeTempRoots, text } from './support.ts';

after(removeTempRoots);

async function refused(promise: Promise<unknown>, code: StoreErrorCode, message?: string): Promise<StoreError> {
  let caught: unknown;
  await assert.rejects(promise, (err: unknown) => {
    caught = err;
    return isStoreError(err, code) && (message === undefined || err.message === message);
  });
  return caught as StoreError;
}

async function versionFiles(root: string, ...docDir: string[]): Promise<string[]> {
  try {
    return (await readdir(path.join(root, ...docDir))).filter((name) => /^v\d+$/.test(name)).sort();
  } catch {
    return [];
  }
}

describe('expected-version (Mark SPEC §6.4)', () => {
  it('creates v2 when the expected version is current, and conflicts when it is not', async () => {
    const { store } = await openStore();
    await store.publish('/a.md', bytes('one'), {});
    assert.equal((await store.publish('/a.md', bytes('two'), {}, { expectedVersion: 1 })).version.version, 2);
    const err = await refused(store.publish('/a.md', bytes('three'), {}, { expectedVersion: 1 }), 'ERR_CONFLICT');
    assert.equal(err.serverVersion, 2);
    assert.equal((await store.publish('/a.md', bytes('three'), {})).version.version, 3);
  });

  it('treats 0 as create-only', async () => {
    const { store } = await openStore();
    assert.equal((await store.publish('/a.md', bytes('one'), {}, { expectedVersion: 0 })).kind, 'created');
    const err = await refused(store.publish('/a.md', bytes('two'), {}, { expectedVersion: 0 }), 'ERR_CONFLICT');
    assert.equal(err.serverVersion, 1);
  });

  it('conflicts with server version 0 when a missing document is expected at v1', async () => {
    const { store } = await openStore();
    const err = await refused(store.publish('/a.md', bytes('one'), {}, { expectedVersion: 1 }), 'ERR_CONFLICT');
    assert.equal(err.serverVersion, 0);
  });

  it('checks the version before the archived and no-op checks', async () => {
    const { store } = await openStore();
    await store.publish('/a.md', bytes('one'), {});
    await refused(store.publish('/a.md', bytes('one'), {}, { expectedVersion: 2 }), 'ERR_CONFLICT');
    await store.archive('/a.md');
    await refused(store.publish('/a.md', bytes('two'), {}, { expectedVersion: 5 }), 'ERR_CONFLICT');
    await refused(
      store.publish('/a.md', bytes('two'), {}, { expectedVersion: 1 }),
      'ERR_ARCHIVED',
      'document is archived',
    );
  });
});

describe('no-op publish (Go store.WriteChecked)', () => {
  it('answers unchanged with the current version when body and normalized metadata match', async () => {
    const { store, root } = await openStore();
    const first = await store.publish('/a.md', bytes('# A\n'), { tags: 'alpha, wire', type: 'Document' });
    const again = await store.publish(
      '/a.md',
      bytes('# A\n'),
      { tags: 'alpha,wire', type: 'Document' },
      { expectedVersion: 1 },
    );
    assert.equal(again.kind, 'unchanged');
    assert.equal(again.version.version, 1);
    assert.equal(again.version.etag, first.version.etag);
    assert.deepEqual(await versionFiles(root, 'versions', 'a.md'), ['v1']);
  });

  it('writes a new version when only the metadata differs (an untyped doc gains its type once)', async () => {
    const { store } = await openStore();
    await store.publish('/a.md', bytes('# A\n'), {});
    const typed = await store.publish('/a.md', bytes('# A\n'), { type: 'Document' });
    assert.equal(typed.kind, 'created');
    assert.equal((await store.publish('/a.md', bytes('# A\n'), { type: 'Document' })).kind, 'unchanged');
  });
});

describe('path collisions (Go store.WriteChecked)', () => {
  it('refuses a document beneath a document, writing nothing', async () => {
    const { store, root } = await openStore();
    await store.publish('/a.md', bytes('a'), {});
    await refused(
      store.publish('/a.md/b.md', bytes('b'), {}, { expectedVersion: 0 }),
      'ERR_COLLISION',
      'cannot publish /a.md/b.md: a document exists at an ancestor: path collision',
    );
    await refused(store.publish('/a.md/deeper/b.md', bytes('b'), {}), 'ERR_COLLISION');
    assert.deepEqual(await readdir(root), ['a.md', 'versions']);
  });

  it('refuses a document where a directory exists', async () => {
    const { store, root } = await openStore();
    await store.publish('/dir.md/inner.md', bytes('x'), {});
    await refused(
      store.publish('/dir.md', bytes('y'), {}),
      'ERR_COLLISION',
      'cannot publish /dir.md: a directory exists at this path: path collision',
    );
    assert.deepEqual(await versionFiles(root, 'versions', 'dir.md'), []);
  });

  it('checks the expected version before the collision', async () => {
    const { store } = await openStore();
    await store.publish('/a.md', bytes('a'), {});
    await refused(store.publish('/a.md/b.md', bytes('b'), {}, { expectedVersion: 3 }), 'ERR_CONFLICT');
  });

  it('never finds a path with a .. segment', async () => {
    const { store } = await openStore();
    await store.publish('/a.md', bytes('a'), {});
    await refused(store.publish('/x/../a.md', bytes('b'), {}), 'ERR_NOT_FOUND');
    await refused(store.append('/x/../a.md', bytes('b'), {}, { expectedVersion: 1 }), 'ERR_NOT_FOUND');
    await refused(store.archive('/x/../a.md'), 'ERR_NOT_FOUND');
    assert.equal(await store.current('/x/../a.md'), null);
    assert.equal(await store.version('/../a.md', 1), null);
  });
});

describe('archive and unarchive (Mark SPEC §6.5)', () => {
  it('refuses writes to an archived document until it is unarchived', async () => {
    const { store, root } = await openStore();
    const v1 = (await store.publish('/doc.md', bytes('x'), {})).version;
    assert.deepEqual(await store.archive('/doc.md'), { version: 1, changed: true });
    assert.deepEqual(await store.archive('/doc.md'), { version: 1, changed: false });
    await refused(store.publish('/doc.md', bytes('y'), {}), 'ERR_ARCHIVED');
    await refused(store.append('/doc.md', bytes('y'), {}, { expectedVersion: 1 }), 'ERR_ARCHIVED');
    assert.equal((await store.version('/doc.md', 1))?.etag, v1.etag, 'pinned versions still serve');
    assert.deepEqual(await store.unarchive('/doc.md'), { version: 1, changed: true });
    assert.equal(await readFile(path.join(root, 'versions', 'doc.md', 'archive-state'), 'utf8'), 'false\n');
    const doc = await store.current('/doc.md');
    assert.equal(doc?.archived, false);
    assert.equal(doc?.current.modified.getTime(), v1.modified.getTime());
    assert.equal((await store.publish('/doc.md', bytes('y'), {})).version.version, 2);
  });

  it('answers not-found for archive and unarchive of a missing document', async () => {
    const { store } = await openStore();
    await refused(store.archive('/missing.md'), 'ERR_NOT_FOUND');
    await refused(store.unarchive('/missing.md'), 'ERR_NOT_FOUND');
    await store.publish('/dir/a.md', bytes('x'), {});
    await refused(store.archive('/dir'), 'ERR_NOT_FOUND');
  });

  it('treats unarchive of a live document as a successful no-op', async () => {
    const { store } = await openStore();
    await store.publish('/a.md', bytes('x'), {});
    assert.deepEqual(await store.unarchive('/a.md'), { version: 1, changed: false });
  });
});

describe('retention (Go storefmt retention)', () => {
  it('prunes versions at or below N − R, oldest first, after the write that carries it', async () => {
    const { store, root } = await openStore();
    for (let n = 1; n <= 5; n++) await store.publish('/r.md', bytes(`v${n}`), {});
    const outcome = await store.publish('/r.md', bytes('v6'), { retention: '2' });
    assert.equal(outcome.kind, 'created');
    assert.deepEqual(outcome.kind === 'created' ? outcome.prune : null, { from: 1, to: 4 });
    assert.deepEqual(await versionFiles(root, 'versions', 'r.md'), ['v5', 'v6']);
    assert.equal(await store.version('/r.md', 4), null);
    const history = await store.history('/r.md');
    assert.deepEqual(
      history?.versions.map((v) => v.version),
      [6, 5],
    );
    assert.equal(history?.chainValid, true, 'the oldest retained version is the root');
  });

  it('applies only to the write carrying the key; an append never inherits it', async () => {
    const { store, root } = await openStore();
    await store.publish('/r.md', bytes('a'), { retention: '1' });
    await store.publish('/r.md', bytes('b'), { retention: '1' });
    assert.deepEqual(await versionFiles(root, 'versions', 'r.md'), ['v2']);
    const appended = await store.append('/r.md', bytes('c'), {}, { expectedVersion: 2 });
    assert.equal(appended.kind === 'created' ? appended.prune : 'none', undefined);
    assert.deepEqual(appended.version.metadata, { type: 'Document' });
    await store.publish('/r.md', bytes('d'), {});
    assert.deepEqual(await versionFiles(root, 'versions', 'r.md'), ['v2', 'v3', 'v4']);
    const prunedByAppend = await store.append('/r.md', bytes('e'), { retention: '1' }, { expectedVersion: 4 });
    assert.deepEqual(prunedByAppend.kind === 'created' ? prunedByAppend.prune : null, { from: 2, to: 4 });
  });

  it('refuses a retention that is not a positive integer', async () => {
    const { store } = await openStore();
    await refused(store.publish('/r.md', bytes('a'), { retention: '0' }), 'ERR_INVALID_METADATA');
  });
});

describe('APPEND (Mark SPEC §6.6)', () => {
  it('joins with a newline only when the base lacks one, and keeps the base metadata', async () => {
    const { store } = await openStore();
    await store.publish('/a.md', bytes('# A\nno newline'), {
      tags: 'rbac, go',
      importance: '0.9',
      type: 'Note',
      retention: '5',
    });
    const outcome = await store.append('/a.md', bytes('more\n'), { agent: 'claude' }, { expectedVersion: 1 });
    assert.equal(text(outcome.version.body), '# A\nno newline\nmore\n');
    assert.deepEqual(outcome.version.metadata, { tags: 'rbac,go', importance: '0.9', type: 'Note', agent: 'claude' });
    const again = await store.append('/a.md', bytes('end'), {}, { expectedVersion: 2 });
    assert.equal(text(again.version.body), '# A\nno newline\nmore\nend');
  });

  it('answers not-found for a missing document and conflict for a stale or future version', async () => {
    const { store } = await openStore();
    await refused(store.append('/missing.md', bytes('x'), {}, { expectedVersion: 1 }), 'ERR_NOT_FOUND');
    await store.publish('/a.md', bytes('one'), {});
    await store.publish('/a.md', bytes('two'), {});
    assert.equal(
      (await refused(store.append('/a.md', bytes('x'), {}, { expectedVersion: 1 }), 'ERR_CONFLICT')).serverVersion,
      2,
    );
    assert.equal(
      (await refused(store.append('/a.md', bytes('x'), {}, { expectedVersion: 3 }), 'ERR_CONFLICT')).serverVersion,
      2,
    );
  });

  it('refuses a joined body over 1 MiB', async () => {
    const { store } = await openStore();
    await store.publish('/a.md', Buffer.alloc(maxBodyBytes - 2, 0x61), {});
    await refused(store.append('/a.md', bytes('bc'), {}, { expectedVersion: 1 }), 'ERR_TOO_LARGE');
    assert.equal(
      (await store.append('/a.md', bytes('b'), {}, { expectedVersion: 1 })).version.body.length,
      maxBodyBytes,
    );
  });

  it('refuses merged metadata over the limits although each side is within them', async () => {
    const { store } = await openStore();
    const half = (prefix: string): Record<string, string> =>
      Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`${prefix}${i}`, 'v']));
    await store.publish('/a.md', bytes('x'), half('a'));
    await refused(
      store.append('/a.md', bytes('y'), half('b'), { expectedVersion: 1 }),
      'ERR_INVALID_METADATA',
      'invalid publisher metadata: too many metadata keys (max 50)',
    );
  });

  it('treats a missing expected version or body as a programming error', async () => {
    const { store } = await openStore();
    await store.publish('/a.md', bytes('x'), {});
    await assert.rejects(store.append('/a.md', bytes('y'), {}, { expectedVersion: 0 }), RangeError);
    await assert.rejects(store.append('/a.md', bytes(''), {}, { expectedVersion: 1 }), RangeError);
  });
});

describe('write validation', () => {
  it('refuses a body over 1 MiB, a body that is not UTF-8, and bad metadata', async () => {
    const { store, root } = await openStore();
    await refused(store.publish('/a.md', Buffer.alloc(maxBodyBytes + 1, 0x61), {}), 'ERR_TOO_LARGE');
    await refused(
      store.publish('/a.md', Buffer.from([0x89, 0x50, 0x4e, 0x47]), {}),
      'ERR_INVALID_CONTENT',
      'document body must be valid UTF-8 text',
    );
    await refused(store.publish('/a.md', bytes('x'), { 'Bad Key': 'v' }), 'ERR_INVALID_METADATA');
    await refused(store.publish('/a.md', bytes('x'), { version: '9' }), 'ERR_INVALID_METADATA');
    assert.deepEqual(await readdir(root), []);
  });

  it('refuses every write on a read-only store but still reads', async () => {
    const { store, root } = await openStore();
    await store.publish('/a.md', bytes('x'), {});
    const readOnly = await FileStore.open(root, { readOnly: true });
    assert.equal(readOnly.readOnly, true);
    await refused(readOnly.publish('/a.md', bytes('y'), {}), 'ERR_READ_ONLY');
    await refused(readOnly.append('/a.md', bytes('y'), {}, { expectedVersion: 1 }), 'ERR_READ_ONLY');
    await refused(readOnly.archive('/a.md'), 'ERR_READ_ONLY');
    await refused(readOnly.unarchive('/a.md'), 'ERR_READ_ONLY');
    assert.equal((await readOnly.current('/a.md'))?.current.version, 1);
  });
});

describe('policy hooks (case 51)', () => {
  it('lets a write check refuse with quota or rejection after the no-op check, writing nothing', async () => {
    const seen: unknown[] = [];
    const { store, root } = await openStore({
      writeCheck: (write) => {
        seen.push(write.metadata);
        if (write.body.length > 3) throw new StoreError('ERR_QUOTA', 'quota exceeded: 3 bytes');
        if (write.metadata.tags === undefined)
          throw new StoreError('ERR_REJECTED', 'missing-tags: every document needs tags');
      },
    });
    await refused(store.publish('/a.md', bytes('x'), {}), 'ERR_REJECTED', 'missing-tags: every document needs tags');
    await refused(store.publish('/a.md', bytes('xxxx'), { tags: 'a' }), 'ERR_QUOTA');
    assert.deepEqual(await readdir(root), []);
    await store.publish('/a.md', bytes('x'), { tags: 'a, b' });
    assert.deepEqual(seen.at(-1), { tags: 'a,b' }, 'the check sees metadata as persisted');
    const calls = seen.length;
    assert.equal((await store.publish('/a.md', bytes('x'), { tags: 'a,b' })).kind, 'unchanged');
    assert.equal(seen.length, calls, 'a no-op never reaches the check');
    await refused(store.append('/a.md', bytes('yyyy'), {}, { expectedVersion: 1 }), 'ERR_QUOTA');
  });

  it('lets an archive check refuse a transition but not a no-op', async () => {
    const { store } = await openStore({
      archiveCheck: (change) => {
        if (change.archived) throw new StoreError('ERR_REJECTED', 'archiving is disabled');
      },
    });
    await store.publish('/a.md', bytes('x'), {});
    await refused(store.archive('/a.md'), 'ERR_REJECTED', 'archiving is disabled');
    assert.equal((await store.current('/a.md'))?.archived, false);
    assert.deepEqual(await store.unarchive('/a.md'), { version: 1, changed: false });
  });
});

describe('change events', () => {
  it('reports each durable change once, and nothing for a no-op', async () => {
    const { store } = await openStore();
    const events: ChangeEvent[] = [];
    const stop = store.onChange((event) => events.push(event));
    await store.publish('/a.md', bytes('x'), {});
    await store.publish('/a.md', bytes('x'), {});
    await store.append('/a.md', bytes('y'), {}, { expectedVersion: 1 });
    await store.archive('/a.md');
    await store.archive('/a.md');
    await store.unarchive('/a.md');
    stop();
    await store.publish('/b.md', bytes('z'), {});
    assert.deepEqual(
      events.map((e) => [e.op, e.path, e.version, e.doc.archived, e.doc.current.version]),
      [
        ['publish', '/a.md', 1, false, 1],
        ['append', '/a.md', 2, false, 2],
        ['archive', '/a.md', 2, true, 2],
        ['unarchive', '/a.md', 2, false, 2],
      ],
    );
  });

  it('keeps a write successful when a listener throws', async () => {
    const { store } = await openStore();
    store.onChange(() => {
      throw new Error('listener bug');
    });
    assert.equal((await store.publish('/a.md', bytes('x'), {})).kind, 'created');
  });
});

describe('concurrent writers in one process', () => {
  it('serialises writes to one document into consecutive versions with a valid chain', async () => {
    const { store } = await openStore();
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) => store.publish('/c.md', bytes(`body ${i}`), {})),
    );
    assert.deepEqual(
      outcomes.map((o) => o.version.version).sort((a, b) => a - b),
      Array.from({ length: 20 }, (_, i) => i + 1),
    );
    assert.equal((await store.history('/c.md'))?.chainValid, true);
  });

  it('lets exactly one of several create-only publishes win', async () => {
    const { store } = await openStore();
    const results = await Promise.allSettled(
      Array.from({ length: 8 }, (_, i) => store.publish('/once.md', bytes(`${i}`), {}, { expectedVersion: 0 })),
    );
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    assert.ok(results.filter((r) => r.status === 'rejected').every((r) => isStoreError(r.reason, 'ERR_CONFLICT')));
  });
});
