/** rateLimitedReport: the first failure at once, then at most one per interval, counting the rest. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rateLimitedReport } from '../../src/broker/kubernetes/rate-limited-report.ts';
import { systemClock } from '../../src/broker/kubernetes/index.ts';

describe('rateLimitedReport', () => {
  it('reports the first failure, holds the rest for the interval, then says how many it held', () => {
    let now = 0;
    const clock = { now: () => now, sleep: systemClock.sleep };
    const reported: unknown[] = [];
    const report = rateLimitedReport((error) => void reported.push(error), 60_000, clock);
    const first = new Error('kubernetes: read lease demarkus/sweeper: HTTP 403');
    report(first);
    for (let i = 0; i < 3; i++) {
      now += 2_000;
      report(new Error('again'));
    }
    assert.deepEqual(reported, [first]);
    now = 60_000;
    const next = new Error('kubernetes: read lease demarkus/sweeper: HTTP 403');
    report(next);
    assert.equal(reported.length, 2);
    const summary = reported[1] as Error;
    assert.equal(
      summary.message,
      'kubernetes: read lease demarkus/sweeper: HTTP 403 (and 3 more since the last report)',
    );
    assert.equal(summary.cause, next);
  });
});
