import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  MemoryEphemeralStore,
  MemoryStateStore,
  jsonDocument,
  StateStoreError,
} from '../../../src/broker/state/index.ts';

describe('short-lived state (memory)', () => {
  const setup = () => {
    let now = 0;
    return { store: new MemoryEphemeralStore({ now: () => now, maxEntries: 3 }), advance: (ms: number) => (now += ms) };
  };

  it('takes a value once: a second take finds nothing', async () => {
    const { store } = setup();
    await store.set('code', { a: 1 }, 1000);
    assert.deepEqual(await store.take('code'), { a: 1 });
    assert.equal(await store.take('code'), null);
  });

  it('forgets entries at their expiry, and an update keeps the expiry', async () => {
    const { store, advance } = setup();
    await store.set('k', 1, 1000);
    advance(600);
    assert.equal(await store.update('k', (v) => (v as number) + 1), 2);
    advance(400);
    assert.equal(await store.get('k'), null);
    assert.equal(await store.update('k', () => 5), null);
  });

  it('hands out copies, so a caller cannot change what is stored', async () => {
    const { store } = setup();
    await store.set('k', { list: [1] }, 1000);
    const value = (await store.get('k')) as { list: number[] };
    value.list.push(2);
    assert.deepEqual(await store.get('k'), { list: [1] });
  });

  it('stays within its bound, dropping the entry closest to expiry', async () => {
    const { store } = setup();
    await store.set('a', 1, 100);
    await store.set('b', 1, 1000);
    await store.set('c', 1, 1000);
    await store.set('d', 1, 1000);
    assert.equal(store.size, 3);
    assert.equal(await store.get('a'), null);
  });
});

describe('JSON documents on the durable port', () => {
  it('stores what the change returns and reports its outcome; a change with no next stores nothing', async () => {
    const store = new MemoryStateStore();
    const doc = jsonDocument(
      store,
      'd.json',
      () => ({ n: 0 }),
      (v): v is { n: number } => typeof (v as { n?: unknown }).n === 'number',
    );
    assert.equal(await doc.update((c) => ({ next: { n: c.n + 1 }, outcome: 'added' })), 'added');
    assert.equal(await doc.update(() => ({ outcome: 'kept' })), 'kept');
    assert.deepEqual(await doc.read(), { n: 1 });
  });

  it('refuses a document of the wrong shape rather than overwrite it', async () => {
    const store = new MemoryStateStore();
    await store.update('d.json', () => Buffer.from('{"other":true}'));
    const doc = jsonDocument(
      store,
      'd.json',
      () => ({ n: 0 }),
      (v): v is { n: number } => typeof (v as { n?: unknown }).n === 'number',
    );
    await assert.rejects(doc.read(), StateStoreError);
  });
});
