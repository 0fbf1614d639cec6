import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PerIpRateLimiter } from '../../src/transport/rate-limit.ts';

function limiterAt(ratePerSecond: number, burst: number): { limiter: PerIpRateLimiter; advance: (ms: number) => void } {
  let now = 1_000;
  const limiter = new PerIpRateLimiter({ ratePerSecond, burst, now: () => now });
  return { limiter, advance: (ms) => (now += ms) };
}

describe('per-IP token bucket (Go golang.org/x/time/rate semantics)', () => {
  it('admits a full burst at once', () => {
    const { limiter } = limiterAt(50, 100);
    const waits = Array.from({ length: 100 }, () => limiter.reserve('10.0.0.1', 0));
    assert.deepEqual(new Set(waits), new Set([0]));
  });

  it('refuses the request after the burst when it may not wait', () => {
    const { limiter } = limiterAt(50, 2);
    limiter.reserve('10.0.0.1', 0);
    limiter.reserve('10.0.0.1', 0);
    assert.equal(limiter.reserve('10.0.0.1', 0), null);
  });

  it('tells a request to wait for its token when the wait fits its budget', () => {
    const { limiter } = limiterAt(50, 1);
    assert.equal(limiter.reserve('10.0.0.1', 1000), 0);
    assert.equal(limiter.reserve('10.0.0.1', 1000), 20);
    assert.equal(limiter.reserve('10.0.0.1', 1000), 40, 'reservations queue behind each other');
  });

  it('takes no token for a refused request', () => {
    const { limiter, advance } = limiterAt(10, 1);
    limiter.reserve('10.0.0.1', 0);
    assert.equal(limiter.reserve('10.0.0.1', 50), null, 'the token is 100 ms away');
    advance(100);
    assert.equal(limiter.reserve('10.0.0.1', 0), 0, 'the refusal did not push the next token back');
  });

  it('refills at the configured rate, up to the burst', () => {
    const { limiter, advance } = limiterAt(10, 2);
    limiter.reserve('10.0.0.1', 0);
    limiter.reserve('10.0.0.1', 0);
    advance(60_000);
    assert.equal(limiter.reserve('10.0.0.1', 0), 0);
    assert.equal(limiter.reserve('10.0.0.1', 0), 0);
    assert.equal(limiter.reserve('10.0.0.1', 0), null, 'an idle minute refills no more than the burst');
  });

  it('keeps a separate bucket for each IP', () => {
    const { limiter } = limiterAt(1, 1);
    assert.equal(limiter.reserve('10.0.0.1', 0), 0);
    assert.equal(limiter.reserve('10.0.0.1', 0), null);
    assert.equal(limiter.reserve('10.0.0.2', 0), 0);
  });

  it('admits everything when the rate is 0', () => {
    const { limiter } = limiterAt(0, 0);
    assert.equal(limiter.enabled, false);
    assert.deepEqual(new Set(Array.from({ length: 1000 }, () => limiter.reserve('10.0.0.1', 0))), new Set([0]));
  });

  it('refuses a negative rate and a zero burst at construction', () => {
    assert.throws(() => new PerIpRateLimiter({ ratePerSecond: -1, burst: 1 }), RangeError);
    assert.throws(() => new PerIpRateLimiter({ ratePerSecond: 5, burst: 0 }), RangeError);
  });
});
