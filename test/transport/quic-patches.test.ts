/**
 * The installed @matrixai/quic and @matrixai/async-locks are the patched ones
 * (patches/, applied by patch-package on `npm install`), so a clean clone that
 * skipped or failed the patch step fails here. The patched behaviour that must
 * not change (a lock with a deadline still times out; streams still round-trip
 * and close; an idle lock taken by the uncontended fast path still excludes,
 * queues and releases as the normal path does) is checked beside it.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Lock, RWLockWriter, errors as lockErrors } from '@matrixai/async-locks';
import { setupTimedCancellable } from '@matrixai/async-locks/utils.js';
import { EventAll, EventDefault, Evented } from '@matrixai/events';
import { errors as quicErrors, events as quicEvents } from '@matrixai/quic';
import { readBounded, writeAndFinish } from '../../src/transport/stream-io.ts';
import { bareQuicClient, echoListener } from './helpers.ts';

describe('patched @matrixai/quic is what runs', () => {
  it('serialises recv with the promise-chain mutex', async () => {
    const listener = await echoListener();
    const client = await bareQuicClient(listener.port);
    try {
      const internals = client.connection as unknown as {
        recvLock: object;
        recvDatagram?: unknown;
        sendSoon?: unknown;
      };
      assert.equal(internals.recvLock.constructor.name, 'RecvMutex');
      assert.equal(typeof internals.recvDatagram, 'function', 'recv batches datagrams (recv-batch)');
      assert.equal(typeof internals.sendSoon, 'function', 'one send per event-loop turn (send-soon)');
      for (const text of ['one', 'two', 'three']) {
        const stream = client.connection.newStream('bidi');
        const writing = writeAndFinish(stream.writable, new TextEncoder().encode(text));
        const { bytes } = await readBounded(stream.readable, 1024);
        await writing;
        assert.ok(bytes.byteLength > 0, 'the echo listener answers every stream');
      }
    } finally {
      await client.destroy({ force: true });
      await listener.close();
    }
  });
  it('delivers every byte of many streams at once when received datagrams are batched', async () => {
    const listener = await echoListener();
    const client = await bareQuicClient(listener.port);
    try {
      // Eight streams of 200 KiB each, each with its own byte pattern, all in flight:
      // bursts of datagrams for several streams share one processStreams.
      const payloads = Array.from({ length: 8 }, (_, i) =>
        new Uint8Array(200 * 1024).map((_, j) => (i * 31 + j) % 251),
      );
      const answers = await Promise.all(
        payloads.map(async (payload) => {
          const stream = client.connection.newStream('bidi');
          const writing = writeAndFinish(stream.writable, payload);
          const { bytes } = await readBounded(stream.readable, 1024 * 1024);
          await writing;
          return bytes;
        }),
      );
      for (const [i, bytes] of answers.entries()) {
        const expected = Buffer.concat([Buffer.from('echo:'), Buffer.from(payloads[i] as Uint8Array)]);
        assert.ok(Buffer.from(bytes).equals(expected), `stream ${i} came back intact`);
      }
    } finally {
      await client.destroy({ force: true });
      await listener.close();
    }
  });
});

describe('patched @matrixai/quic connection timer', () => {
  it('arms one Node timer per connection and still closes an idle connection', async () => {
    const listener = await echoListener();
    const client = await bareQuicClient(listener.port, { maxIdleTimeout: 300 });
    try {
      const internals = client.connection as unknown as { armConnTimeout?: unknown; connTimeoutRef?: unknown };
      assert.equal(typeof internals.armConnTimeout, 'function', 'the connection timer is patched (conn-timer)');
      assert.ok(internals.connTimeoutRef !== undefined, 'quiche asked for a timeout and the timer is armed');
      // No traffic and no keep-alive: quiche's idle timer must fire through this timer.
      const closed = new Promise<unknown>((resolve) => {
        const onError = (event: Event): void =>
          resolve((event as InstanceType<typeof quicEvents.EventQUICClientError>).detail);
        client.addEventListener(quicEvents.EventQUICClientError.name, onError, { once: true });
      });
      assert.ok((await closed) instanceof quicErrors.ErrorQUICConnectionIdleTimeout);
      await client.closedP;
    } finally {
      await client.destroy({ force: true });
      await listener.close();
    }
  });
});

describe('patched @matrixai/quic relays stream events only to listeners (stream-events-heard)', () => {
  type Listenable = { addEventListener(type: string, f: (event: Event) => void): void };
  // One echo on a new stream, resolved once the stream is destroyed (its last event).
  const echoOnce = async (client: Awaited<ReturnType<typeof bareQuicClient>>): Promise<void> => {
    const stream = client.connection.newStream('bidi');
    const destroyed = new Promise<void>((resolve) =>
      stream.addEventListener(quicEvents.EventQUICStreamDestroyed.name, () => resolve(), { once: true }),
    );
    const writing = writeAndFinish(stream.writable, new TextEncoder().encode('ping'));
    await readBounded(stream.readable, 1024);
    await writing;
    await destroyed;
  };

  it('dispatches no clone of a stream event on a connection where nobody hears it', async () => {
    const listener = await echoListener();
    const client = await bareQuicClient(listener.port);
    try {
      const connection = client.connection as unknown as EventTarget & { isStreamEventHeard?: unknown };
      assert.equal(typeof connection.isStreamEventHeard, 'function', 'QUICConnection is patched');
      const dispatched: string[] = [];
      const dispatch = connection.dispatchEvent.bind(connection);
      connection.dispatchEvent = (event: Event): boolean => {
        dispatched.push(event.type);
        return dispatch(event);
      };
      await echoOnce(client);
      assert.deepEqual(
        dispatched.filter((type) => type.startsWith('EventQUICStream')),
        [],
        'upstream cloned the close, destroy and destroyed events of the stream onto the connection',
      );
    } finally {
      await client.destroy({ force: true });
      await listener.close();
    }
  });

  it("still delivers a stream's events to listeners on the connection and, through it, on the client", async () => {
    const listener = await echoListener();
    const client = await bareQuicClient(listener.port);
    try {
      const onConnection: string[] = [];
      const onClient: string[] = [];
      (client.connection as unknown as Listenable).addEventListener(quicEvents.EventQUICStreamCloseRead.name, (event) =>
        onConnection.push(event.type),
      );
      (client as unknown as Listenable).addEventListener(quicEvents.EventQUICStreamDestroy.name, (event) =>
        onClient.push(event.type),
      );
      await echoOnce(client);
      assert.deepEqual(onConnection, [quicEvents.EventQUICStreamCloseRead.name]);
      assert.deepEqual(onClient, [quicEvents.EventQUICStreamDestroy.name]);
      const all: Event[] = [];
      (client as unknown as Listenable).addEventListener(EventAll.name, (event) =>
        all.push((event as EventAll).detail as Event),
      );
      await echoOnce(client);
      assert.ok(
        all.some((event) => event.type === quicEvents.EventQUICStreamCloseWrite.name),
        'an EventAll listener on the client hears every stream event again',
      );
    } finally {
      await client.destroy({ force: true });
      await listener.close();
    }
  });
});

describe('patched @matrixai/events is what runs', () => {
  class Probe extends Event {}
  const Source = Evented()(class Source {});
  type Source = InstanceType<typeof Source>;
  const dispatch = (source: Source, event: Event): boolean => (source as unknown as EventTarget).dispatchEvent(event);
  const listen = (source: Source, type: string, f: (event: Event) => void): void =>
    (source as unknown as EventTarget).addEventListener(type, f);

  it('skips events nobody can receive, and still delivers to EventAll and EventDefault listeners', () => {
    assert.match(
      String((Source.prototype as unknown as EventTarget).dispatchEvent),
      /hasListeners/,
      'Evented.dispatchEvent is patched (events-unheard)',
    );
    const source = new Source();
    assert.equal(dispatch(source, new Probe('probe')), true, 'an unheard event dispatches as before');
    const all: Event[] = [];
    const unhandled: Event[] = [];
    listen(source, EventAll.name, (event) => all.push((event as EventAll).detail as Event));
    listen(source, EventDefault.name, (event) => unhandled.push((event as EventDefault).detail as Event));
    const first = new Probe('probe');
    dispatch(source, first);
    assert.deepEqual(all, [first], 'EventAll wraps the event');
    assert.deepEqual(unhandled, [first], 'EventDefault wraps the unhandled event');
    const own: Event[] = [];
    listen(source, 'probe', (event) => own.push(event));
    const second = new Probe('probe');
    dispatch(source, second);
    assert.deepEqual(own, [second]);
    assert.equal(second.target, source, 'listeners see the Evented object as the target');
    assert.deepEqual(unhandled, [first], 'a handled event is not wrapped in EventDefault');
    assert.deepEqual(all, [first, second]);
  });
});

describe('patched @matrixai/async-locks is what runs', () => {
  it('builds no timer for an acquisition without a deadline', async () => {
    let seen: { timer?: unknown; signal?: AbortSignal } | undefined;
    await setupTimedCancellable(
      (ctx: { timer?: unknown; signal?: AbortSignal }) => {
        seen = { ...ctx };
        return Promise.resolve();
      },
      true,
      Number.POSITIVE_INFINITY,
      lockErrors.ErrorAsyncLocksTimeout,
      {},
      [],
    );
    assert.equal(seen?.timer, undefined);
    assert.ok(seen?.signal instanceof AbortSignal, 'the acquisition still gets a signal to cancel with');
  });

  it('still times out a lock acquisition that has a deadline', async () => {
    const lock = new Lock();
    let release: () => void = () => {};
    const held = lock.withF(() => new Promise<void>((resolve) => (release = resolve)));
    await assert.rejects(
      lock.withF({ timer: 20 }, async () => {}),
      (error: unknown) => error instanceof lockErrors.ErrorAsyncLocksTimeout,
    );
    release();
    await held;
  });

  it('still cancels a waiting acquisition through a caller signal', async () => {
    const lock = new Lock();
    let release: () => void = () => {};
    const held = lock.withF(() => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    const waiting = lock.withF({ signal: controller.signal }, async () => {});
    controller.abort(new Error('caller gave up'));
    await assert.rejects(waiting, /caller gave up/);
    release();
    await held;
  });
});

describe('patched @matrixai/async-locks: uncontended RWLockWriter fast path (lock-fast)', () => {
  type Run = (lock: RWLockWriter, f: () => Promise<void>) => Promise<void>;
  // The same acquisition through the fast path (no context) and through the
  // normal path (an empty context is not taken by the fast path).
  const paths: ReadonlyArray<{ name: string; write: Run; read: Run }> = [
    { name: 'fast path', write: (lock, f) => lock.withWriteF(f), read: (lock, f) => lock.withReadF(f) },
    { name: 'normal path', write: (lock, f) => lock.withWriteF({}, f), read: (lock, f) => lock.withReadF({}, f) },
  ];
  const gate = (): { opened: Promise<void>; open: () => void } => {
    let open: () => void = () => {};
    const opened = new Promise<void>((resolve) => (open = resolve));
    return { opened, open };
  };
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  const readersLocked = (lock: RWLockWriter): boolean =>
    (lock as unknown as { readersLock: Lock }).readersLock.isLocked();

  it('takes an idle lock at once, with no AbortController, and still runs f in a later microtask', async () => {
    assert.equal(
      typeof (RWLockWriter.prototype as unknown as { uncontendedWithF?: unknown }).uncontendedWithF,
      'function',
    );
    const lock = new RWLockWriter();
    const Original = globalThis.AbortController;
    let built = 0;
    globalThis.AbortController = class extends Original {
      constructor() {
        super();
        built += 1;
      }
    };
    let ran = false;
    let writing: Promise<string>;
    try {
      writing = lock.withWriteF(async (held) => {
        ran = true;
        assert.equal(held, lock, 'f gets the lock, as through withF');
        return 'result';
      });
      assert.equal(ran, false, 'f does not run synchronously');
      assert.ok(lock.isLocked('write'), 'write-locked at once');
      assert.ok(readersLocked(lock), 'both inner locks taken at once (the normal path takes the readers lock later)');
      assert.equal(await writing, 'result');
      assert.equal(await lock.withReadF(async () => 'read'), 'read');
    } finally {
      globalThis.AbortController = Original;
    }
    assert.equal(built, 0, 'no AbortController built for uncontended acquisitions');
    assert.equal(lock.isLocked(), false);
    assert.equal(lock.count, 0);
  });

  for (const path of paths) {
    it(`${path.name}: a held write lock blocks a second writer and a reader, which proceed in order after release`, async () => {
      const lock = new RWLockWriter();
      const order: string[] = [];
      const first = gate();
      const holding = path.write(lock, async () => {
        order.push('writer 1');
        await first.opened;
        order.push('writer 1 done');
      });
      await settle();
      const second = lock.withWriteF(async () => {
        order.push('writer 2');
      });
      const reader = lock.withReadF(async () => {
        order.push('reader');
      });
      await settle();
      assert.deepEqual(order, ['writer 1'], 'nobody else runs while the first writer holds the lock');
      assert.ok(lock.isLocked('write'));
      assert.equal(lock.writerCount, 2);
      assert.equal(lock.readerCount, 1);
      first.open();
      await Promise.all([holding, second, reader]);
      assert.deepEqual(order, ['writer 1', 'writer 1 done', 'writer 2', 'reader']);
      assert.equal(lock.isLocked(), false);
      assert.equal(lock.count, 0);
    });

    it(`${path.name}: a held read lock admits readers, and a waiting writer goes before later readers`, async () => {
      const lock = new RWLockWriter();
      const order: string[] = [];
      const first = gate();
      const holding = path.read(lock, async () => {
        order.push('reader 1');
        await first.opened;
        order.push('reader 1 done');
      });
      await settle();
      const sharing = lock.withReadF(async () => {
        order.push('reader 2');
      });
      await settle();
      const writer = lock.withWriteF(async () => {
        order.push('writer');
      });
      const later = lock.withReadF(async () => {
        order.push('reader 3');
      });
      await settle();
      assert.deepEqual(
        order,
        ['reader 1', 'reader 2'],
        'readers share; the writer waits and so does a reader behind it',
      );
      assert.ok(lock.isLocked('write'), 'the waiting writer already holds the writers lock (writer preference)');
      first.open();
      await Promise.all([holding, sharing, writer, later]);
      assert.deepEqual(order, ['reader 1', 'reader 2', 'reader 1 done', 'writer', 'reader 3']);
      assert.equal(lock.isLocked(), false);
      assert.equal(lock.count, 0);
    });

    it(`${path.name}: an error in f releases the lock, is rethrown, and a waiting writer proceeds`, async () => {
      const lock = new RWLockWriter();
      const first = gate();
      const failing = path.write(lock, async () => {
        await first.opened;
        throw new Error('f failed');
      });
      await settle();
      let waited = false;
      const waiting = lock.withWriteF(async () => {
        waited = true;
      });
      await settle();
      assert.equal(waited, false);
      first.open();
      await assert.rejects(failing, /f failed/);
      await waiting;
      assert.equal(waited, true);
      // A synchronous throw (not a rejected promise) is released and rethrown too.
      const throwing = path.read(lock, (() => {
        throw new Error('thrown at once');
      }) as unknown as () => Promise<void>);
      await assert.rejects(throwing, /thrown at once/);
      assert.equal(lock.isLocked(), false);
      assert.equal(lock.count, 0);
      await lock.withWriteF(async () => {});
    });
  }
});
