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

  it('starts no new call of a key past inFlightShared while another key is active, and the other key at once', async () => {
    let now = 0;
    const limit = new KeyedLimit({ inFlight: 3, inFlightShared: 1, activeWindowMs: 1000, waiting: 10, now: () => now });
    const started: string[] = [];
    const gates = Array.from({ length: 5 }, () => gate());
    const flood = gates.map((g, i) =>
      limit.run('flooder', async () => {
        started.push(`f${i}`);
        await g.opened;
      }),
    );
    assert.deepEqual(started, ['f0', 'f1', 'f2'], 'alone, the flooder runs inFlight calls at once');
    assert.equal(limit.boundFor('flooder'), 3);
    await limit.run('victim', async () => {
      started.push('victim');
    });
    assert.deepEqual(started, ['f0', 'f1', 'f2', 'victim'], 'the victim does not wait behind the flood');
    assert.equal(limit.boundFor('flooder'), 1, 'the victim counts as active for the window after its call');
    gates[0]!.open();
    gates[1]!.open();
    await Promise.all(flood.slice(0, 2));
    assert.deepEqual(started, ['f0', 'f1', 'f2', 'victim'], 'with f2 still running, nothing more starts');
    now += 1001;
    gates[2]!.open();
    await flood[2];
    assert.deepEqual(started, ['f0', 'f1', 'f2', 'victim', 'f3', 'f4'], 'once the window passed, the full bound again');
    gates[3]!.open();
    gates[4]!.open();
    await Promise.all(flood);
    assert.equal(limit.usersOf('flooder'), 0);
  });

  it("counts a key's own recent calls as its own, not as another's", async () => {
    let now = 0;
    const limit = new KeyedLimit({ inFlight: 2, inFlightShared: 1, waiting: 1, now: () => now });
    await limit.run('solo', async () => undefined);
    now += 10;
    assert.equal(limit.boundFor('solo'), 2);
    assert.equal(limit.boundFor('other'), 1, 'solo finished a call 10 ms ago');
  });

  it('refuses bounds that are not positive integers', () => {
    assert.throws(() => new KeyedLimit({ inFlight: 0, waiting: 1 }), /inFlight must be a positive integer/);
    assert.throws(() => new KeyedLimit({ inFlight: 1, waiting: 1.5 }), /waiting must be a positive integer/);
    assert.throws(
      () => new KeyedLimit({ inFlight: 1, inFlightShared: 0, waiting: 1 }),
      /inFlightShared must be a positive integer/,
    );
  });
});
