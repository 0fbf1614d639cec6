import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FairGate } from '../../../src/broker/worlds/fair-gate.ts';

const never = new AbortController().signal;

describe('fair gate', () => {
  it('caps one caller below the capacity and serves another caller at once', async () => {
    const gate = new FairGate({ capacity: 4, perCaller: 2 });
    const a1 = await gate.acquire('a', never);
    await gate.acquire('a', never);
    let third = false;
    void gate.acquire('a', never).then(() => (third = true));
    await gate.acquire('b', never);
    await Promise.resolve();
    assert.equal(third, false);
    assert.equal(gate.heldBy('a'), 2);
    assert.equal(gate.inFlight, 3);
    a1();
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(third, true);
  });

  it('hands a freed slot to the next caller in turn, not to the one with the longest queue', async () => {
    const gate = new FairGate({ capacity: 1, perCaller: 1 });
    let release = await gate.acquire('flood', never);
    const order: string[] = [];
    const waits = [
      ...Array.from({ length: 5 }, () =>
        gate.acquire('flood', never).then((r) => {
          order.push('flood');
          return r;
        }),
      ),
    ];
    const victim = gate.acquire('victim', never).then((r) => {
      order.push('victim');
      return r;
    });
    release();
    release = await waits[0]!;
    release();
    release = await victim;
    assert.deepEqual(order, ['flood', 'victim']);
    release();
    for (const wait of waits.slice(1)) (await wait)();
  });

  it('gives up a wait when the signal fires, and frees nothing it never held', async () => {
    const gate = new FairGate({ capacity: 1, perCaller: 1 });
    const held = await gate.acquire('a', never);
    const controller = new AbortController();
    const waiting = gate.acquire('b', controller.signal);
    controller.abort(new Error('deadline'));
    await assert.rejects(waiting, /deadline/);
    held();
    assert.equal(gate.inFlight, 0);
    (await gate.acquire('c', never))();
  });

  it('takes a slot at once only when one is free for the caller and nobody waits', async () => {
    const gate = new FairGate({ capacity: 2, perCaller: 1 });
    const a = gate.tryAcquire('a');
    assert.notEqual(a, undefined);
    assert.equal(gate.tryAcquire('a'), undefined, 'a is at its share');
    const b = await gate.acquire('b', never);
    const waiting = gate.acquire('a', never);
    b();
    assert.equal(gate.tryAcquire('c'), undefined, 'a call is queued, so the fast path leaves c to acquire()');
    a!();
    (await waiting)();
    assert.equal(gate.inFlight, 0);
  });
});
