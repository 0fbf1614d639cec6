import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { boundedMap, runPool } from '../../src/concurrency/pool.ts';
import { Semaphore } from '../../src/concurrency/semaphore.ts';

/** Counts visits in flight; each visit waits for the test to let it finish. */
function gauge() {
  let active = 0;
  let peak = 0;
  return {
    get peak() {
      return peak;
    },
    async hold<T>(value: T): Promise<T> {
      active++;
      peak = Math.max(peak, active);
      await new Promise((resolve) => setImmediate(resolve));
      active--;
      return value;
    },
  };
}

describe('runPool', () => {
  it('visits items added while it runs, never more than `workers` at once', async () => {
    const g = gauge();
    const queue = [1];
    const seen: number[] = [];
    await runPool(
      queue,
      async (n) => {
        seen.push(await g.hold(n));
        if (n < 20) queue.push(n * 2, n * 2 + 1);
      },
      { workers: 3 },
    );
    assert.deepEqual(
      seen.sort((a, b) => a - b),
      Array.from({ length: 39 }, (_, i) => i + 1),
    );
    assert.equal(g.peak, 3);
  });

  it('starts at most `maxItems`', async () => {
    const seen: number[] = [];
    await runPool([1, 2, 3, 4, 5], async (n) => void seen.push(n), { workers: 2, maxItems: 3 });
    assert.deepEqual(seen, [1, 2, 3]);
  });

  it('rejects with the first failure and starts nothing after it', async () => {
    const started: number[] = [];
    await assert.rejects(
      runPool(
        [1, 2, 3, 4, 5, 6],
        async (n) => {
          started.push(n);
          await new Promise((resolve) => setImmediate(resolve));
          if (n === 2) throw new Error('two');
        },
        { workers: 2 },
      ),
      /two/,
    );
    assert.ok(!started.includes(5), `started ${started.join(',')}`);
  });

  it('on abort, starts nothing more and resolves once the visits in flight settle', async () => {
    const controller = new AbortController();
    let finished = 0;
    await runPool(
      [1, 2, 3, 4, 5, 6],
      async (n) => {
        if (n === 2) controller.abort();
        await new Promise((resolve) => setImmediate(resolve));
        finished++;
      },
      { workers: 2, signal: controller.signal },
    );
    assert.equal(finished, 2);
  });
});

describe('boundedMap', () => {
  it('answers in item order, a failure as that item only, within the bound', async () => {
    const g = gauge();
    const results = await boundedMap([1, 2, 3, 4, 5], 2, async (n) => {
      await g.hold(n);
      if (n === 3) throw new Error('three');
      return n * 10;
    });
    assert.deepEqual(
      results.map((r) => (r.ok ? r.value : (r.error as Error).message)),
      [10, 20, 'three', 40, 50],
    );
    assert.equal(g.peak, 2);
  });
});

describe('Semaphore', () => {
  it('grants in arrival order and lets an aborted wait go', async () => {
    const slots = new Semaphore(1);
    await slots.acquire();
    const order: string[] = [];
    const controller = new AbortController();
    const abandoned = slots.acquire(controller.signal).then(
      () => order.push('abandoned'),
      () => order.push('aborted'),
    );
    const waiting = slots.acquire().then(() => order.push('second'));
    controller.abort();
    await abandoned;
    slots.release();
    await waiting;
    assert.deepEqual(order, ['aborted', 'second']);
  });
});
