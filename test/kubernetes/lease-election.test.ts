/**
 * Lease leader election between two broker replicas, with the real
 * client-node against a fake Kubernetes API server. The clock is shared and
 * moved by the test, so "the lease expired" and "the renew deadline passed"
 * are events the test causes, not durations it measures; pauses between
 * renewals are real but short. A renewal that never gets an answer is the
 * fake server's `hang`.
 */
import { after, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { stringify } from 'yaml';
import { startLeaderSweep } from '../../src/broker/cluster.ts';
import { parseBrokerConfig } from '../../src/broker/config/index.ts';
import { RefreshTokens } from '../../src/broker/auth/tokens/refresh-tokens.ts';
import {
  defaultDocumentLocation,
  LeaseElector,
  runLeaderSweeper,
  SecretStateStore,
  systemClock,
  type Clock,
} from '../../src/broker/kubernetes/index.ts';
import { env } from '../broker/config/fixtures.ts';
import { startFakeApiServer, type FakeApiServer } from './fake-api/server.ts';
import { apis, assertOnlyDeclaredCalls, eventually } from './helpers.ts';

const namespace = 'demarkus';
let server: FakeApiServer;
let leaseName: string;
let counter = 0;

/**
 * Real pauses, and a `now` the test can move forward: moving it also ends
 * every pause that is then due, as time passing would (the renew deadline's
 * timer among them).
 */
function shiftedClock(): Clock & { advance(ms: number): void } {
  let offset = 0;
  const now = () => Date.now() + offset;
  const waiting = new Set<{ due: number; wake: () => void }>();
  const sleep = (ms: number, signal?: AbortSignal) => {
    const waiter = { due: now() + ms, wake: () => {} };
    const woken = new Promise<void>((resolve) => {
      waiter.wake = resolve;
    });
    waiting.add(waiter);
    const cancel = new AbortController();
    return Promise.race([
      systemClock.sleep(ms, AbortSignal.any([cancel.signal, ...(signal ? [signal] : [])])),
      woken,
    ]).finally(() => {
      waiting.delete(waiter);
      cancel.abort();
    });
  };
  const advance = (ms: number) => {
    offset += ms;
    for (const waiter of waiting) if (waiter.due <= now()) waiter.wake();
  };
  return { now, sleep, advance };
}

function elector(identity: string, clock: Clock, errors: unknown[] = [], leaseDurationMs = 2_000) {
  return new LeaseElector({
    coordination: apis(server, identity).coordination,
    namespace,
    name: leaseName,
    identity,
    leaseDurationMs,
    renewDeadlineMs: 1_000,
    retryPeriodMs: 10,
    clock,
    onError: (error) => errors.push(error),
  });
}

const lease = () => server.store.get('leases', namespace, leaseName);
const spec = () =>
  (lease()?.spec ?? {}) as {
    holderIdentity?: string;
    leaseTransitions?: number;
    renewTime?: string;
    acquireTime?: string;
    leaseDurationSeconds?: number;
  };
const count = (identity: string, verb: string, status = 200) =>
  server.requests.filter(
    (request) => request.identity === identity && request.verb === verb && request.status === status,
  ).length;

before(async () => {
  // broker-a is cut off for good by one test; the later ones run as broker-c and broker-d.
  server = await startFakeApiServer(['broker-a', 'broker-b', 'broker-c', 'broker-d']);
});
beforeEach(() => {
  leaseName = `demarkus-broker-sweeper-${++counter}`;
});
after(async () => {
  for (const name of Array.from({ length: counter }, (_, i) => `demarkus-broker-sweeper-${i + 1}`)) {
    assertOnlyDeclaredCalls(
      server.requests.filter((request) => request.name === name || request.name === null),
      { brokerNamespace: namespace, worlds: {}, leaseName: name },
    );
  }
  await server.close();
});

describe('Lease election between two brokers (fake API server, real client-node)', () => {
  it('lets exactly one of two candidates lead while the leader keeps renewing', async () => {
    const clock = shiftedClock();
    const stop = new AbortController();
    const led: string[] = [];
    const a = elector('broker-a', clock);
    const b = elector('broker-b', clock);
    const runs = [
      a.run(stop.signal, () => void led.push('broker-a')),
      b.run(stop.signal, () => void led.push('broker-b')),
    ];
    await eventually(() => led.length === 1, 'a leader');
    const leader = led[0]!;
    const follower = leader === 'broker-a' ? 'broker-b' : 'broker-a';
    await eventually(
      () => count(leader, 'update') >= 3 && count(follower, 'get') >= 3,
      'three renewals and three polls',
    );
    assert.deepEqual(led, [leader], 'the follower never led');
    assert.equal(spec().holderIdentity, leader);
    assert.equal(spec().leaseTransitions, 0);
    assert.equal(spec().leaseDurationSeconds, 2);
    assert.match(spec().renewTime ?? '', /\.\d{6}Z$/, 'MicroTime with six fractional digits');
    assert.equal(count(follower, 'update'), 0, 'the follower never writes a held lease');
    stop.abort();
    await Promise.all(runs);
  });

  it('hands over at once when the leader stops: it releases the lease on the way out', async () => {
    const clock = shiftedClock();
    const stopA = new AbortController();
    const stopB = new AbortController();
    const events: string[] = [];
    const a = elector('broker-a', clock);
    const runA = a.run(stopA.signal, (leadership) => {
      events.push('a leads');
      leadership.addEventListener('abort', () => events.push('a steps down'));
    });
    await eventually(() => a.isLeader, 'broker-a leading');
    const b = elector('broker-b', clock);
    const runB = b.run(stopB.signal, () => void events.push('b leads'));
    await eventually(() => count('broker-b', 'get') >= 2, 'broker-b polling');
    stopA.abort();
    await runA;
    assert.equal(spec().holderIdentity, '', 'released');
    await eventually(() => b.isLeader, 'broker-b leading'); // no clock movement needed
    assert.deepEqual(events, ['a leads', 'a steps down', 'b leads']);
    assert.equal(spec().holderIdentity, 'broker-b');
    assert.equal(spec().leaseTransitions, 1);
    stopB.abort();
    await runB;
  });

  it('takes over from a leader that stopped renewing only after the lease duration has passed', async () => {
    const clock = shiftedClock();
    const stop = new AbortController();
    const events: string[] = [];
    const errorsA: unknown[] = [];
    const a = elector('broker-a', clock, errorsA);
    const runA = a.run(stop.signal, (leadership) => {
      events.push('a leads');
      leadership.addEventListener('abort', () => events.push('a steps down'));
    });
    await eventually(() => a.isLeader, 'broker-a leading');
    const b = elector('broker-b', clock);
    const runB = b.run(stop.signal, () => void events.push('b leads'));
    await eventually(() => count('broker-b', 'get') >= 2, 'broker-b polling');

    server.cutOff('broker-a'); // its node lost the API server
    const seen = count('broker-b', 'get');
    await eventually(() => count('broker-b', 'get') >= seen + 2, 'broker-b seeing the last renewal');
    clock.advance(1_500); // past renewDeadline (1 s), inside leaseDuration (2 s)
    await eventually(() => !a.isLeader, 'broker-a stepping down');
    const polls = count('broker-b', 'get');
    await eventually(() => count('broker-b', 'get') >= polls + 3, 'three more polls by broker-b');
    assert.equal(b.isLeader, false, 'the lease is still within its duration');
    assert.equal(spec().holderIdentity, 'broker-a');

    clock.advance(1_000); // now past leaseDuration since broker-b last saw a renewal
    await eventually(() => b.isLeader, 'broker-b leading');
    assert.deepEqual(events, ['a leads', 'a steps down', 'b leads']);
    assert.equal(spec().holderIdentity, 'broker-b');
    assert.equal(spec().leaseTransitions, 1);
    assert.ok(errorsA.length > 0, 'broker-a reported its failed renewals');
    stop.abort();
    await Promise.all([runA, runB]);
  });

  it('steps down at the renew deadline while a renewal hangs, before the other replica can take the lease', async (t) => {
    const clock = shiftedClock();
    const stop = new AbortController();
    // A failed assertion must not leave both electors running: the file would never end.
    t.after(() => stop.abort());
    const events: string[] = [];
    // The clock also moves with real time: a lease duration far beyond the renew deadline keeps a slow
    // machine's seconds from expiring the lease before the test advances past it on purpose.
    const leaseDurationMs = 30_000;
    const a = elector('broker-c', clock, [], leaseDurationMs);
    const b = elector('broker-d', clock, [], leaseDurationMs);
    const runA = a.run(stop.signal, (leadership) => {
      events.push('a leads');
      leadership.addEventListener('abort', () => events.push('a steps down'));
    });
    await eventually(() => a.isLeader, 'broker-c leading');
    const runB = b.run(stop.signal, () => void events.push(a.isLeader ? 'b leads while a leads' : 'b leads'));
    await eventually(() => count('broker-d', 'get') >= 2, 'broker-d polling');

    const lease = leaseName; // this test's Lease only: later tests have their own
    const hangs = server.hang((request) => request.identity === 'broker-c' && request.name === lease);
    t.after(hangs);
    await eventually(() => server.openHungRequests === 1, 'a renewal of broker-c waiting for its answer');
    const seen = count('broker-d', 'get');
    await eventually(() => count('broker-d', 'get') >= seen + 2, 'broker-d seeing the last renewal');
    clock.advance(1_500); // past renewDeadline (1 s), well inside leaseDuration (30 s)
    await eventually(() => !a.isLeader, 'broker-c stepping down with its renewal unanswered');
    assert.deepEqual(events, ['a leads', 'a steps down']);
    await eventually(() => server.openHungRequests === 0, 'the unanswered requests cancelled');
    assert.equal(b.isLeader, false);
    assert.equal(spec().holderIdentity, 'broker-c', 'the lease is still within its duration');

    clock.advance(leaseDurationMs); // past leaseDuration since broker-d last saw a renewal
    await eventually(() => b.isLeader, 'broker-d leading');
    assert.deepEqual(events, ['a leads', 'a steps down', 'b leads']);
    stop.abort();
    await Promise.all([runA, runB]);
  });

  it('stops while the sweep hangs on Secret requests (fake API server): its calls are cut off and the Lease released', async (t) => {
    const clock = shiftedClock();
    const stop = new AbortController();
    t.after(() => stop.abort());
    const core = apis(server, 'broker-c').core;
    const store = new SecretStateStore({ core, namespace, locate: defaultDocumentLocation('hung-refresh-tokens') });
    const refreshTokens = new RefreshTokens(store, { ttlMs: 60_000 });
    const hangs = server.hang((request) => request.resource === 'secrets' && request.name === 'hung-refresh-tokens');
    t.after(hangs);
    const errors: unknown[] = [];
    const running = runLeaderSweeper(stop.signal, {
      elector: elector('broker-c', clock),
      intervalMs: 3_600_000,
      sweep: async (leadership) => void (await refreshTokens.sweep(leadership)),
      onError: (error) => void errors.push(error),
      clock,
    });
    await eventually(() => server.openHungRequests === 1, 'the sweep reading its Secret, unanswered');
    stop.abort();
    // The hung read is never answered: the sweeper returns only because stopping cut it off.
    await running;
    assert.equal(spec().holderIdentity, '', 'released on the way out');
    await eventually(() => server.openHungRequests === 0, 'the hung request closed by the client');
    assert.deepEqual(errors, [], 'a pass cut short by the end of leadership is not reported');
  });

  it('releases the Lease at the renew deadline when the lead ignores the leadership signal', async (t) => {
    const clock = shiftedClock();
    const stop = new AbortController();
    t.after(() => stop.abort());
    const a = elector('broker-c', clock);
    let leading = false;
    const running = a.run(stop.signal, () => {
      leading = true;
      return new Promise<void>(() => {}); // never returns, whatever the signal says
    });
    await eventually(() => leading, 'broker-c leading');
    stop.abort();
    clock.advance(1_000); // the renew deadline (1 s) of the last renewal has passed
    await running;
    assert.equal(spec().holderIdentity, '', 'released although the lead never returned');
  });

  it('gives the broker sweep the leadership signal, which aborts when leadership ends', async () => {
    const config = parseBrokerConfig(
      stringify({
        server: { addr: ':8080', publicURL: 'https://broker.example.com', brokerNamespace: namespace },
        storage: { backend: 'kubernetes' },
        sweeper: { leaseName, interval: '1h' },
        worlds: [
          { name: 'team-a', namespace: 'team-a', tokensSecret: 'team-a-tokens', defaultToken: { paths: ['/**'] } },
        ],
      }),
      env,
    );
    const signals: unknown[] = [];
    const errors: unknown[] = [];
    const stopSweep = startLeaderSweep(
      config,
      { apis: apis(server, 'broker-c') },
      async (leadership) => {
        signals.push(leadership);
        await new Promise((resolve) => leadership.addEventListener('abort', resolve));
      },
      (error) => void errors.push(error),
    );
    await eventually(() => signals.length === 1, 'the first pass');
    const leadership = signals[0];
    assert.ok(leadership instanceof AbortSignal, 'the pass got the leadership signal');
    assert.equal(leadership.aborted, false);
    await stopSweep();
    assert.equal(leadership.aborted, true, 'leadership ended: the pass was told to stop');
    assert.deepEqual(errors, []);
  });

  it('warns of failed Lease calls (fake API server answering 403), once for repeated failures, naming no body', async () => {
    const config = parseBrokerConfig(
      stringify({
        server: { addr: ':8080', publicURL: 'https://broker.example.com', brokerNamespace: namespace },
        storage: { backend: 'kubernetes' },
        sweeper: { leaseName, interval: '1h' },
        worlds: [
          { name: 'team-a', namespace: 'team-a', tokensSecret: 'team-a-tokens', defaultToken: { paths: ['/**'] } },
        ],
      }),
      env,
    );
    const lease = leaseName;
    server.fail((request) => request.name === lease, 403, Number.POSITIVE_INFINITY);
    const warnings: string[] = [];
    let sweeps = 0;
    const stopSweep = startLeaderSweep(
      config,
      { apis: apis(server, 'broker-c') },
      async () => void sweeps++,
      () => assert.fail('no sweep ran, so none failed'),
      (error) => void warnings.push(error instanceof Error ? error.message : String(error)),
    );
    await eventually(() => count('broker-c', 'get', 403) >= 2, 'two refused attempts');
    await stopSweep();
    assert.deepEqual(warnings, [`kubernetes: read lease ${namespace}/${lease}: HTTP 403`]);
    assert.equal(sweeps, 0);
  });

  it('runs the sweeper only on the leader: one pass at once, then every interval', async () => {
    const clock = shiftedClock();
    const stop = new AbortController();
    const passes = { 'broker-a': 0, 'broker-b': 0 };
    const sweepers = (['broker-a', 'broker-b'] as const).map((identity) =>
      runLeaderSweeper(stop.signal, {
        elector: elector(identity, clock),
        intervalMs: 5,
        clock,
        sweep: async () => void passes[identity]++,
      }),
    );
    await eventually(() => passes['broker-a'] + passes['broker-b'] >= 5, 'five sweeps');
    assert.ok(passes['broker-a'] === 0 || passes['broker-b'] === 0, `one replica swept: ${JSON.stringify(passes)}`);
    stop.abort();
    await Promise.all(sweepers);
  });

  it('refuses a renew deadline that is not shorter than the lease duration', () => {
    assert.throws(
      () =>
        new LeaseElector({
          coordination: apis(server).coordination,
          namespace,
          name: 'x',
          identity: 'i',
          leaseDurationMs: 1000,
          renewDeadlineMs: 1000,
        }),
      /renewDeadline must be shorter than leaseDuration/,
    );
  });
});
