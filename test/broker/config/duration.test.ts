import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DurationError, formatGoDuration, parseGoDuration } from '../../../src/broker/config/index.ts';

describe('Go duration syntax (Go time.ParseDuration)', () => {
  it('reads every Go unit into milliseconds', () => {
    assert.equal(parseGoDuration('250ms'), 250);
    assert.equal(parseGoDuration('5s'), 5_000);
    assert.equal(parseGoDuration('5m'), 300_000);
    assert.equal(parseGoDuration('2160h'), 7_776_000_000);
    assert.equal(parseGoDuration('1h30m'), 5_400_000);
    assert.equal(parseGoDuration('1.5s'), 1_500);
    assert.equal(parseGoDuration('.5s'), 500);
    assert.equal(parseGoDuration('2000000us'), 2_000);
    assert.equal(parseGoDuration('3000000ns'), 3);
    assert.equal(parseGoDuration('1000µs'), 1);
  });

  it('accepts a bare zero and signs, as Go does', () => {
    assert.equal(parseGoDuration('0'), 0);
    assert.equal(parseGoDuration('+1s'), 1_000);
    assert.equal(parseGoDuration('-1s'), -1_000);
  });

  it('refuses text Go refuses', () => {
    for (const text of ['', '5', 'm', '5x', '1.s.', '1h 30m', 'five minutes', '-', '1e3s']) {
      assert.throws(() => parseGoDuration(text), DurationError, text);
    }
  });

  it('refuses a sub-millisecond remainder rather than rounding it', () => {
    assert.throws(() => parseGoDuration('1500us'), {
      message: 'invalid duration "1500us": must be a whole number of milliseconds',
    });
  });

  it('names the accepted syntax in its message', () => {
    assert.throws(() => parseGoDuration('5x'), {
      message: 'invalid duration "5x": use Go syntax such as "250ms", "5m" or "2160h"',
    });
  });

  it('prints durations as Go does', () => {
    assert.equal(formatGoDuration(900_000), '15m0s');
    assert.equal(formatGoDuration(7_776_000_000), '2160h0m0s');
    assert.equal(formatGoDuration(250), '250ms');
    assert.equal(formatGoDuration(1_500), '1.5s');
    assert.equal(formatGoDuration(0), '0s');
  });
});
