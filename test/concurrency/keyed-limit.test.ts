import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedLimit, QueueFullError } from '../../src/concurrency/keyed-limit.ts';

/** A task that runs until released, recording that it started. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

describe('KeyedLimit', () => {
  it("runs at most inFlight calls of one key, in arrival order, and never holds back another key's", async () => {
    const limit = new KeyedLimit({ inFlight: 2, waiting: 5 });
    const started: string[] = [];
    const gates = [gate(), gate(), gate()];
    const calls = gates.map((g, i) =>
      limit.run('flooder', async () => {
        started.push(`f${i}`);
        await g.opened;
      }),
    );
    await limit.run('victim', async () => {
      started.push('victim');
    });
    assert.deepEqual(started, ['f0', 'f1', 'victim'], 'the third flooder call waits, the victim does not');
    assert.equal(limit.usersOf('flooder'), 3);
    gates[0]!.open();
    await calls[0];
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(started, ['f0', 'f1', 'victim', 'f2']);
    gates[1]!.open();
    gates[2]!.open();
    await Promise.all(calls);
    assert.equal(limit.usersOf('flooder'), 0, 'an idle key is forgotten');
  });

  it('refuses a call past inFlight + waiting, naming the numbers, and spends nothing on it', async () => {
    const limit = new KeyedLimit({ inFlight: 1, waiting: 1 });
    const g = gate();
    const running = limit.run('k', () => g.opened);
    const queued = limit.run('k', async () => 'second');
    await assert.rejects(
      limit.run('k', async () => 'third'),
      (error: unknown) =>
        error instanceof QueueFullError && /1 of your calls are running and 1 more/.test(error.message),
    );
    assert.equal(limit.usersOf('k'), 2);
    g.open();
    await running;
    assert.equal(await queued, 'second');
  });

  it('lets a waiting call give up with its signal, and frees its place', async () => {
    const limit = new KeyedLimit({ inFlight: 1, waiting: 1 });
    const g = gate();
    const running = limit.run('k', () => g.opened);
    const controller = new AbortController();
    const waiting = limit.run('k', async () => 'never', controller.signal);
    controller.abort(new Error('caller gone'));
    await assert.rejects(waiting, /caller gone/);
    assert.equal(limit.usersOf('k'), 1);
    g.open();
    await running;
  });

  it('refuses bounds that are not positive integers', () => {
    assert.throws(() => new KeyedLimit({ inFlight: 0, waiting: 1 }), /inFlight must be a positive integer/);
    assert.throws(() => new KeyedLimit({ inFlight: 1, waiting: 1.5 }), /waiting must be a positive integer/);
  });
});
