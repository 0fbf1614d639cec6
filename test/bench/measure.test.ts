import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { median, percentile } from '../../bench/lib/measure.ts';

describe('bench/lib/measure.ts', () => {
  it('takes the mean of the two middle values as the median of an even count (quic-patches and metadata-decode use 6 rounds)', () => {
    assert.equal(median([1, 2, 3, 4]), 2.5);
    assert.equal(median([100, 4, 1, 3, 2, 10]), 3.5);
  });

  it('takes the middle value as the median of an odd count, whatever the order', () => {
    assert.equal(median([3, 1, 2]), 2);
    assert.equal(median([7]), 7);
  });

  it('gives NaN as the median of no values rather than a number that was never measured', () => {
    assert.ok(Number.isNaN(median([])));
  });

  it('reads percentiles by nearest rank: p50 of 1..100 is 50, p99 is 99, p100 is the largest', () => {
    const sorted = Array.from({ length: 100 }, (_, i) => i + 1);
    assert.equal(percentile(sorted, 0.5), 50);
    assert.equal(percentile(sorted, 0.99), 99);
    assert.equal(percentile(sorted, 1), 100);
    assert.equal(percentile([5], 0.99), 5);
  });
});
