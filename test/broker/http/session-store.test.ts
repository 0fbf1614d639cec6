import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BoundedSessionState } from '../../../src/broker/http/session-state.ts';
import { SessionStore, type Session } from '../../../src/broker/http/session-store.ts';
import { SharedMemory } from '../../../src/broker/http/shared-memory.ts';

function clock(): { now: () => number; advance: (ms: number) => void } {
  let t = 0;
  return { now: () => t, advance: (ms) => (t += ms) };
}

type Probe = Session & { closed: () => boolean };

function session(id: string, subject = 'ada'): Probe {
  let closed = false;
  const state = new BoundedSessionState(id);
  state.set('seen', id);
  return {
    id,
    subject,
    state,
    transport: { handleRequest: async () => {} },
    close: async () => {
      closed = true;
    },
    closed: () => closed,
  };
}

describe('session store bounds', () => {
  it("when full, never closes another subject's session: a newcomer is told no room", () => {
    const evicted: string[] = [];
    const store = new SessionStore({ maxSessions: 2, onEvict: (s, reason) => evicted.push(`${s.id}:${reason}`) });
    const [a, b, c] = [session('a', 'x'), session('b', 'y'), session('c', 'z')];
    store.add(a);
    store.add(b);
    assert.equal(store.canOpen('z'), false);
    assert.equal(store.add(c), false);
    assert.deepEqual(evicted, []);
    assert.equal(c.closed(), false);
    assert.ok(store.use('a', 'x'));
    assert.ok(store.use('b', 'y'));
  });

  it('when full, a subject replaces its own least recently used session, freeing its state', () => {
    const evicted: string[] = [];
    const store = new SessionStore({ maxSessions: 3, onEvict: (s, reason) => evicted.push(`${s.id}:${reason}`) });
    const [a1, a2, b, a3] = [session('a1', 'x'), session('a2', 'x'), session('b', 'y'), session('a3', 'x')];
    for (const s of [a1, a2, b]) store.add(s);
    assert.ok(store.use('a1', 'x'));
    assert.equal(store.canOpen('x'), true);
    assert.equal(store.add(a3), true);
    assert.deepEqual(evicted, ['a2:capacity']);
    assert.equal(a2.state.size, 0);
    assert.equal(b.closed(), false);
    assert.equal(store.size, 3);
  });

  it('tells a copy its client ended here from one ended elsewhere, and closes each once', () => {
    const evicted: string[] = [];
    const store = new SessionStore({ onEvict: (s, reason) => evicted.push(`${s.id}:${reason}`) });
    const [here, elsewhere] = [session('here'), session('elsewhere')];
    store.add(here);
    store.add(elsewhere);
    store.end('here');
    store.drop('elsewhere');
    store.end('here');
    assert.deepEqual(evicted, ['here:ended', 'elsewhere:ended-elsewhere']);
    assert.equal(here.closed(), true);
    assert.equal(store.size, 0);
  });

  it('when full, closes sessions past their idle TTL to make room for a newcomer', () => {
    const time = clock();
    const store = new SessionStore({ maxSessions: 1, idleTtlMs: 1000, now: time.now });
    const old = session('old', 'x');
    store.add(old);
    assert.equal(store.canOpen('y'), false);
    time.advance(1001);
    assert.equal(store.canOpen('y'), true);
    assert.equal(old.closed(), true);
  });

  it('caps sessions per subject without touching other subjects', () => {
    const store = new SessionStore({ maxSessions: 10, maxSessionsPerSubject: 2 });
    const mine = [session('m1'), session('m2'), session('m3')];
    const theirs = session('t1', 'grace');
    store.add(theirs);
    for (const s of mine) store.add(s);
    assert.deepEqual(
      mine.map((s) => s.closed()),
      [true, false, false],
    );
    assert.equal(theirs.closed(), false);
    assert.equal(store.size, 3);
  });

  it('closes sessions idle past the TTL on sweep, and keeps recently used ones', async () => {
    const c = clock();
    const store = new SessionStore({ idleTtlMs: 1000, now: c.now });
    const [idle, busy] = [session('idle'), session('busy')];
    store.add(idle);
    store.add(busy);
    c.advance(600);
    store.use('busy', 'ada');
    c.advance(600);
    assert.equal(await store.sweep(), 1);
    assert.equal(idle.closed(), true);
    assert.equal(busy.closed(), false);
    assert.ok(store.use('busy', 'ada'));
  });

  it('never replaces a session it holds with another of the same id: the second is refused, neither is closed', () => {
    const sizes: number[] = [];
    const store = new SessionStore({ onSizeChange: (n) => sizes.push(n) });
    const [first, second] = [session('s1'), session('s1')];
    assert.equal(store.add(first), true);
    assert.equal(store.add(second), false);
    assert.equal(store.use('s1', 'ada'), first);
    assert.deepEqual([first.closed(), second.closed()], [false, false]);
    assert.deepEqual(sizes, [1]);
  });

  it('asks once about the idle shared copies only, and keeps those in use through other replicas', async () => {
    const c = clock();
    const asked: string[][] = [];
    const store = new SessionStore({
      idleTtlMs: 1000,
      now: c.now,
      inUseElsewhere: async (ids) => {
        asked.push([...ids]);
        return new Set(['busy-elsewhere']);
      },
    });
    const [alone, ended, busy, recent] = [
      session('alone'),
      { ...session('ended'), shared: new SharedMemory(1) },
      { ...session('busy-elsewhere'), shared: new SharedMemory(1) },
      { ...session('recent'), shared: new SharedMemory(1) },
    ];
    for (const s of [alone, ended, busy]) store.add(s);
    c.advance(1001);
    store.add(recent);
    assert.equal(await store.sweep(), 2);
    assert.deepEqual(asked, [['ended', 'busy-elsewhere']]);
    assert.deepEqual(
      [alone, ended, busy, recent].map((s) => s.closed()),
      [true, true, false, false],
    );
    // Kept as used now: the next sweep within the TTL asks nothing.
    c.advance(500);
    assert.equal(await store.sweep(), 0);
    assert.equal(asked.length, 1);
  });

  it('keeps idle shared copies when nobody can say whether they are in use elsewhere', async () => {
    const c = clock();
    const store = new SessionStore({
      idleTtlMs: 1000,
      now: c.now,
      inUseElsewhere: async () => {
        throw new Error('Redis did not answer');
      },
    });
    const copy = { ...session('copy'), shared: new SharedMemory(1) };
    store.add(copy);
    c.advance(1001);
    assert.equal(await store.sweep(), 0);
    assert.equal(copy.closed(), false);
  });

  it('hands a session only to the subject that opened it', () => {
    const store = new SessionStore();
    store.add(session('s1', 'ada'));
    assert.equal(store.use('s1', 'mallory'), undefined);
    assert.ok(store.use('s1', 'ada'));
  });

  it('forgets a session the client ended without closing it twice', () => {
    const sizes: number[] = [];
    const store = new SessionStore({ onSizeChange: (n) => sizes.push(n) });
    const s = session('s1');
    store.add(s);
    store.forget('s1');
    assert.equal(s.closed(), false);
    assert.deepEqual(sizes, [1, 0]);
  });

  it('closes everything on shutdown', async () => {
    const store = new SessionStore();
    const all = [session('a', 'x'), session('b', 'y')];
    for (const s of all) store.add(s);
    await store.closeAll();
    assert.deepEqual(
      all.map((s) => s.closed()),
      [true, true],
    );
    assert.equal(store.size, 0);
  });

  it('refuses nonsense bounds', () => {
    assert.throws(() => new SessionStore({ maxSessions: 0 }), RangeError);
    assert.throws(() => new SessionStore({ idleTtlMs: -1 }), RangeError);
  });
});

describe('bounded session state', () => {
  it('drops the least recently written key past its bound', () => {
    const state = new BoundedSessionState('s', 2);
    state.set('a', 1);
    state.set('b', 2);
    state.set('a', 3);
    state.set('c', 4);
    assert.equal(state.get('b'), undefined);
    assert.equal(state.get('a'), 3);
    assert.equal(state.size, 2);
  });
});

describe('sessions with an open event stream', () => {
  function streamingSession(id: string, open: { value: boolean }, shared = false): Probe {
    return {
      ...session(id),
      streaming: () => open.value,
      ...(shared ? { shared: new SharedMemory(0) } : {}),
    };
  }

  it('are kept by the sweep however long they idle, and closed once the stream has closed', async () => {
    const time = clock();
    const store = new SessionStore({ idleTtlMs: 1000, now: time.now });
    const open = { value: true };
    const listening = streamingSession('s', open);
    const quiet = session('q');
    store.add(listening);
    store.add(quiet);
    time.advance(1500);
    assert.equal(await store.sweep(), 1);
    assert.equal(quiet.closed(), true);
    time.advance(5000);
    assert.equal(await store.sweep(), 0);
    assert.equal(listening.closed(), false);
    open.value = false;
    time.advance(1500);
    assert.equal(await store.sweep(), 1);
    assert.equal(listening.closed(), true);
  });

  it('are not closed to make room for a newcomer, and still count against the caps', () => {
    const time = clock();
    const store = new SessionStore({ maxSessions: 1, maxSessionsPerSubject: 1, idleTtlMs: 1000, now: time.now });
    const listening = streamingSession('s', { value: true });
    store.add(listening);
    time.advance(1500);
    assert.equal(store.canOpen('other'), false);
    assert.equal(listening.closed(), false);
    assert.equal(store.add(session('mine')), true);
    assert.equal(listening.closed(), true);
  });

  it('have their shared record renewed once half the TTL has passed, before the directory can expire it', async () => {
    const time = clock();
    const renewed: string[][] = [];
    const store = new SessionStore({
      idleTtlMs: 1000,
      now: time.now,
      renewShared: async (ids) => {
        renewed.push([...ids]);
        return new Set(ids);
      },
    });
    store.add(streamingSession('shared', { value: true }, true));
    store.add(streamingSession('local', { value: true }));
    time.advance(400);
    await store.sweep();
    assert.deepEqual(renewed, []);
    time.advance(200);
    await store.sweep();
    assert.deepEqual(renewed, [['shared']]);
  });

  it('are asked about again by the next sweep when the directory did not renew them', async () => {
    const time = clock();
    const asked: string[][] = [];
    let answering = false;
    const store = new SessionStore({
      idleTtlMs: 1000,
      now: time.now,
      renewShared: async (ids) => {
        asked.push([...ids]);
        if (!answering) throw new Error('directory unavailable');
        return new Set(ids.filter((id) => id !== 'refused'));
      },
    });
    store.add(streamingSession('shared', { value: true }, true));
    store.add(streamingSession('refused', { value: true }, true));
    time.advance(600);
    await store.sweep();
    answering = true;
    // A quarter TTL later: both are still due, the record having last been renewed 850 ms ago.
    time.advance(250);
    await store.sweep();
    // Renewed at 850, 'shared' is not due before 1350; 'refused' was not renewed and is asked again.
    time.advance(250);
    await store.sweep();
    assert.deepEqual(asked, [['shared', 'refused'], ['shared', 'refused'], ['refused']]);
  });

  it('count as used from when the renewal was sent, so the next one is due half a TTL later however slow the answer', async () => {
    const time = clock();
    const askedAt: number[] = [];
    let answer: (() => void) | undefined;
    const store = new SessionStore({
      idleTtlMs: 1000,
      now: time.now,
      renewShared: (ids) => {
        askedAt.push(time.now());
        return new Promise((resolve) => {
          answer = () => resolve(new Set(ids));
        });
      },
    });
    store.add(streamingSession('shared', { value: true }, true));
    time.advance(500);
    const sweeping = store.sweep();
    // The directory's round trip: a request on another session lands before its answer.
    time.advance(5);
    store.add(session('other'));
    time.advance(5);
    answer?.();
    await sweeping;
    // Sweeps a quarter TTL apart from the one that sent the renewal at 500: the one at 1000 renews
    // again, leaving a failed renewal a quarter TTL to be retried before the record expires at ~1500.
    time.advance(240);
    await store.sweep();
    time.advance(250);
    const due = store.sweep();
    answer?.();
    await due;
    assert.deepEqual(askedAt, [500, 1000]);
  });

  it('are renewed by one sweep at a time: a sweep started while one runs joins it', async () => {
    const time = clock();
    let calls = 0;
    const pending: Array<() => void> = [];
    const store = new SessionStore({
      idleTtlMs: 1000,
      now: time.now,
      renewShared: () => {
        calls += 1;
        return new Promise<ReadonlySet<string>>((resolve) => pending.push(() => resolve(new Set())));
      },
    });
    store.add(streamingSession('shared', { value: true }, true));
    time.advance(600);
    const first = store.sweep();
    // The directory still has not answered when the next sweep is due: it must not ask again.
    time.advance(600);
    const second = store.sweep();
    for (const release of pending) release();
    assert.deepEqual(await Promise.all([first, second]), [0, 0]);
    assert.equal(calls, 1);
  });
});
