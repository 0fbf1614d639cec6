/**
 * A VERSIONS request whose client gave up stops checking the version chain
 * (src/world/store/doc-reader.ts, verifyChain) within one version, as LIST
 * stops checking a folder's entries (test/world/store/listing.test.ts). Before
 * the fix every version was read to the end, the answer then sent to nobody:
 * 220 ms p50 for 20 versions of 1 MiB (docs/benchmarks.md, "2026-12-07 (eighth
 * session)"). The first test read all 20 versions so (checked with the fix
 * reversed).
 *
 * A real world server over QUIC, its real file store, and the real Mark client
 * resetting its stream; the store's history is swapped for the same read with
 * the store's internal chain-read probe (doc-reader.ts, `ChainReadProbe`), only
 * to count the versions the chain check reads and to hold one read until the
 * reset arrived.
 */
import assert from 'node:assert/strict';
import { realpath } from 'node:fs/promises';
import { afterEach, describe, it } from 'node:test';
import type { History, HistoryReading } from '../../src/world/store/index.ts';
import { readHistory } from '../../src/world/store/doc-reader.ts';
import { RequestAbortedError } from '../../src/transport/errors.ts';
import { gate } from '../transport/helpers.ts';
import { startWorldFixture, type WorldFixture } from './world-fixture.ts';

const versions = 20;
/** The version whose read is held until the client's reset reached the world. */
const heldVersion = 3;

/** Resolves with the signal's reason once it aborts. */
function abortReasonOf(signal: AbortSignal): Promise<unknown> {
  if (signal.aborted) return Promise.resolve(signal.reason);
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(signal.reason), { once: true }));
}

const isTimeout = (reason: unknown): boolean => reason instanceof DOMException && reason.name === 'TimeoutError';

type Observed = { read: number[]; signal: AbortSignal | undefined; history: Promise<History | null> | undefined };

/**
 * Wraps the world's store so each VERSIONS records the versions its chain check
 * reads; `hold` (when given) runs before reading `heldVersion`, with the request's signal.
 */
async function observeHistory(fixture: WorldFixture, hold?: (signal: AbortSignal) => Promise<void>): Promise<Observed> {
  const store = fixture.server.world.context.store;
  const root = { root: store.root, realRoot: await realpath(store.root) };
  const observed: Observed = { read: [], signal: undefined, history: undefined };
  store.history = (docPath: string, reading: HistoryReading = {}) => {
    observed.signal = reading.signal;
    observed.history = readHistory(root, docPath, reading, async (version) => {
      observed.read.push(version);
      if (version === heldVersion && hold !== undefined && reading.signal !== undefined) await hold(reading.signal);
    });
    return observed.history;
  };
  return observed;
}

async function publishVersions(fixture: WorldFixture, docPath: string): Promise<void> {
  const store = fixture.server.world.context.store;
  for (let i = 1; i <= versions; i += 1) await store.publish(docPath, Buffer.from(`# Version ${i}\n`), {});
}

describe('VERSIONS whose client gave up (src/transport/peer-abandonment.ts)', () => {
  let fixture: WorldFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('stops reading versions within one version of the reset', async () => {
    fixture = await startWorldFixture();
    await publishVersions(fixture, '/long.md');
    const reached = gate();
    const resetSeen = gate<unknown>();
    const observed = await observeHistory(fixture, async (signal) => {
      reached.open();
      // The world's request deadline (10 s) also aborts this signal; the reason tells them apart.
      resetSeen.open(await abortReasonOf(signal));
    });
    const caller = new AbortController();
    const call = fixture.client.call(fixture.authority, {
      verb: 'VERSIONS',
      path: '/long.md',
      signal: caller.signal,
    });
    await reached.promise;
    // Not in the turn the read was held in: see test/transport/abandoned-request.test.ts on
    // a STOP_SENDING sent with the acknowledgement of everything the listener sent.
    await new Promise((resolve) => setTimeout(resolve, 0));
    caller.abort();
    await assert.rejects(call, RequestAbortedError);
    assert.equal(isTimeout(await resetSeen.promise), false, 'the chain check ran on to the request deadline');
    await assert.rejects(observed.history as Promise<History | null>, (error) => error === observed.signal?.reason);
    assert.deepEqual(observed.read, [1, 2, heldVersion], 'versions after the reset were still read');
  });

  it('reads every version and answers as before when the client waits', async () => {
    fixture = await startWorldFixture();
    await publishVersions(fixture, '/long.md');
    const observed = await observeHistory(fixture);
    const response = await fixture.call('VERSIONS', '/long.md');
    assert.equal(response.status, 'ok');
    assert.equal(response.metadata.total, String(versions));
    assert.equal(response.metadata['chain-valid'], 'true');
    assert.deepEqual(
      observed.read,
      Array.from({ length: versions }, (_, i) => i + 1),
    );
    assert.notEqual(observed.signal, undefined, 'VERSIONS did not hand its request signal to the store');
  });
});
