import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { CurrentCache } from '../../../src/world/store/current-cache.ts';
import type { DocState } from '../../../src/world/store/types.ts';

function doc(path: string, bytes: number): DocState {
  const raw = new Uint8Array(bytes);
  return {
    path,
    archived: false,
    current: { path, version: 1, body: raw, metadata: {}, modified: new Date(0), etag: '', contentHash: '', raw },
  };
}

describe('the current-version cache', () => {
  it('stays within its bytes, forgetting the least recently read first', () => {
    const cache = new CurrentCache(800);
    cache.set('/a.md', doc('/a.md', 100));
    cache.set('/b.md', doc('/b.md', 100));
    for (let i = 0; i < 7; i += 1) {
      assert.ok(cache.get('/a.md'), 'a read keeps /a.md recent');
      cache.set(`/fill-${i}.md`, doc(`/fill-${i}.md`, 100));
    }
    assert.ok(cache.get('/a.md'));
    assert.equal(cache.get('/b.md'), undefined);
  });

  it('keeps no version over an eighth of its bound, and drops what the path held', () => {
    const cache = new CurrentCache(800);
    cache.set('/a.md', doc('/a.md', 100));
    cache.set('/a.md', doc('/a.md', 101));
    assert.equal(cache.get('/a.md'), undefined);
  });

  it('refuses a fill from a read that started before a write', () => {
    const cache = new CurrentCache();
    const before = cache.generation('/a.md');
    cache.invalidate('/a.md');
    cache.fill('/a.md', doc('/a.md', 10), before);
    assert.equal(cache.get('/a.md'), undefined);
    cache.fill('/a.md', doc('/a.md', 10), cache.generation('/a.md'));
    assert.ok(cache.get('/a.md'));
  });
});
