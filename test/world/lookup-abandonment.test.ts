/**
 * A body LOOKUP whose client gave up stops within a few slices of the reset
 * (src/world/body-index.ts, src/search/slices.ts), as VERSIONS stops reading
 * versions (test/world/versions-abandonment.test.ts). Before, the search was
 * synchronous: it held the world's event loop to its end, so the reset was not
 * even heard until every document had been compared, the answer then sent to
 * nobody (checked with the search run whole: all documents were compared).
 *
 * The LOOKUP misses and asks `nearest-titles`, the costliest body LOOKUP (about
 * 1 s over 5,000 documents, docs/benchmarks.md "2026-12-07 (eighth session) LIST
 * of large folders"): every title the caller may read is compared with every
 * query word. The documents compared are counted through the world's catalog,
 * which the search asks about each document (scope, filter) just before
 * comparing its title. A real world server over QUIC and the real Mark client
 * resetting its stream.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { RequestAbortedError } from '../../src/transport/errors.ts';
import type { BodyIndex } from '../../src/world/body-index.ts';
import { missMetadata, publishTitled } from './titled-documents.ts';
import { startWorldFixture, type WorldFixture } from './world-fixture.ts';

const documents = 240;
/** Documents compared before the client gives up. */
const abortAfter = 5;

type Observed = {
  /** Catalog reads during the LOOKUP: one per document compared. */
  compared: number;
  answer: ReturnType<BodyIndex['lookup']> | undefined;
  signal: AbortSignal | undefined;
};

/** Counts the documents the LOOKUP compares; `onCompared(n)` runs at each. */
function observeLookup(fixture: WorldFixture, onCompared: (n: number) => void = () => {}): Observed {
  const { catalog, bodyIndex } = fixture.server.world.context;
  const observed: Observed = { compared: 0, answer: undefined, signal: undefined };
  const get = catalog.get.bind(catalog);
  catalog.get = (path) => {
    onCompared(++observed.compared);
    return get(path);
  };
  const index = bodyIndex as BodyIndex;
  const lookup = index.lookup.bind(index);
  index.lookup = (query, request, options) => {
    observed.signal = options.signal;
    observed.answer = lookup(query, request, options);
    return observed.answer;
  };
  return observed;
}

const isTimeout = (reason: unknown): boolean => reason instanceof DOMException && reason.name === 'TimeoutError';

describe('body LOOKUP whose client gave up (src/transport/peer-abandonment.ts)', () => {
  let fixture: WorldFixture | undefined;
  afterEach(async () => {
    await fixture?.close();
    fixture = undefined;
  });

  it('stops comparing titles within a few slices of the reset', async () => {
    fixture = await startWorldFixture();
    await publishTitled(fixture, documents);
    const caller = new AbortController();
    const observed = observeLookup(fixture, (n) => {
      // Not in the turn of the search's slice: see test/transport/abandoned-request.test.ts on
      // a STOP_SENDING sent with the acknowledgement of everything the listener sent.
      if (n === abortAfter) setTimeout(() => caller.abort(), 0);
    });
    const call = fixture.client.call(fixture.authority, {
      verb: 'LOOKUP',
      path: '/',
      metadata: missMetadata,
      signal: caller.signal,
    });
    await assert.rejects(call, RequestAbortedError);
    assert.notEqual(observed.answer, undefined, 'the LOOKUP reached the body index');
    await assert.rejects(observed.answer as Promise<unknown>, (error) => {
      assert.equal(isTimeout(error), false, 'the search ran on to the request deadline');
      return error === observed.signal?.reason;
    });
    assert.ok(observed.compared >= abortAfter);
    assert.ok(
      observed.compared < documents / 3,
      `${observed.compared} of ${documents} titles compared after the client gave up at ${abortAfter}`,
    );
  });

  it('compares every title and answers as before when the client waits', async () => {
    fixture = await startWorldFixture();
    await publishTitled(fixture, documents);
    const observed = observeLookup(fixture);
    const response = await fixture.call('LOOKUP', '/', missMetadata);
    assert.equal(response.status, 'ok');
    assert.equal(response.metadata.matches, '0');
    assert.ok((response.metadata['nearest-titles'] ?? '').length > 0, 'nearest titles answered');
    assert.equal(observed.compared, documents);
    assert.notEqual(observed.signal, undefined, 'LOOKUP did not hand its request signal to the body index');
  });
});
