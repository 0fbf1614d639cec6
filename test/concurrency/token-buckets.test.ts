import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TokenBuckets } from '../../src/concurrency/token-buckets.ts';

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 0;
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('token buckets (Go broker ratelimit.go)', () => {
  it('allows a burst, then refuses with the seconds until the next token', () => {
    const c = clock();
    const buckets = new TokenBuckets({ perMinute: 6, burst: 2, now: c.now });
    assert.deepEqual(buckets.take('a'), { ok: true });
    assert.deepEqual(buckets.take('a'), { ok: true });
    assert.deepEqual(buckets.take('a'), { ok: false, retryAfterSeconds: 10 });
  });

  it('spends nothing on a refused request', () => {
    const c = clock();
    const buckets = new TokenBuckets({ perMinute: 60, burst: 1, now: c.now });
    assert.equal(buckets.take('a').ok, true);
    for (let i = 0; i < 20; i += 1) assert.equal(buckets.take('a').ok, false);
    c.advance(1000);
    assert.deepEqual(buckets.take('a'), { ok: true });
  });

  it('rounds Retry-After up and never below one second', () => {
    const c = clock();
    const buckets = new TokenBuckets({ perMinute: 600, burst: 1, now: c.now });
    buckets.take('a');
    assert.deepEqual(buckets.take('a'), { ok: false, retryAfterSeconds: 1 });
    const slow = new TokenBuckets({ perMinute: 0.5, burst: 1, now: c.now });
    slow.take('a');
    c.advance(1);
    assert.deepEqual(slow.take('a'), { ok: false, retryAfterSeconds: 120 });
  });

  it('refills no higher than the burst', () => {
    const c = clock();
    const buckets = new TokenBuckets({ perMinute: 60, burst: 2, now: c.now });
    buckets.take('a');
    c.advance(3_600_000);
    assert.equal(buckets.take('a').ok, true);
    assert.equal(buckets.take('a').ok, true);
    assert.equal(buckets.take('a').ok, false);
  });

  it('keeps keys apart', () => {
    const c = clock();
    const buckets = new TokenBuckets({ perMinute: 1, burst: 1, now: c.now });
    assert.equal(buckets.take('a').ok, true);
    assert.equal(buckets.take('a').ok, false);
    assert.equal(buckets.take('b').ok, true);
  });

  it('stays within maxKeys, forgetting refilled buckets first', () => {
    const c = clock();
    const buckets = new TokenBuckets({ perMinute: 60, burst: 1, maxKeys: 3, now: c.now });
    buckets.take('old-1');
    buckets.take('old-2');
    c.advance(5000);
    buckets.take('busy');
    buckets.take('new');
    assert.equal(buckets.size, 2);
    // "busy" was kept: it is still empty.
    assert.equal(buckets.take('busy').ok, false);
    for (let i = 0; i < 100; i += 1) buckets.take(`k${i}`);
    assert.equal(buckets.size, 3);
  });

  it('refuses nonsense settings at construction', () => {
    assert.throws(() => new TokenBuckets({ perMinute: 0, burst: 1 }), RangeError);
    assert.throws(() => new TokenBuckets({ perMinute: 10, burst: 0 }), RangeError);
    assert.throws(() => new TokenBuckets({ perMinute: 10, burst: 1.5 }), RangeError);
  });
});
